#!/usr/bin/env node
/*
 * Independent-oracle test-vector generator for provd.
 *
 * All expected values are computed with ffjavascript (the arithmetic library
 * snarkjs uses; pinned in package.json) and, where cheap, cross-checked here
 * against a plain BigInt re-implementation.  Any disagreement aborts the run,
 * so a broken encoding or a surprise in the library fails loudly.
 *
 * Usage: node generate.js --out DIR [--seed N] [--quick]
 *
 * Encoding (see README.md): field elements are lowercase hex of their
 * little-endian bytes in normal (non-Montgomery) form, fixed width n8 bytes;
 * scalars are 32-byte little-endian hex; points are affine, infinity has all
 * coordinates zero.
 */
"use strict";

const fs = require("fs");
const path = require("path");
const ff = require("ffjavascript");

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

function usage(msg) {
    if (msg) process.stderr.write("error: " + msg + "\n");
    process.stderr.write("usage: node generate.js --out DIR [--seed N] [--quick]\n");
    process.exit(2);
}

function parseArgs(argv) {
    const opts = { out: null, seed: 1n, quick: false };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === "--out") {
            if (i + 1 >= argv.length) usage("--out needs a value");
            opts.out = argv[++i];
        } else if (a === "--seed") {
            if (i + 1 >= argv.length) usage("--seed needs a value");
            const s = argv[++i];
            if (!/^[0-9]+$/.test(s)) usage("--seed must be a non-negative integer");
            opts.seed = BigInt(s);
        } else if (a === "--quick") {
            opts.quick = true;
        } else if (a === "-h" || a === "--help") {
            usage();
        } else {
            usage("unknown argument " + a);
        }
    }
    if (!opts.out) usage("--out is required");
    return opts;
}

// ---------------------------------------------------------------------------
// Deterministic PRNG: splitmix64 over BigInt (never Math.random)
// ---------------------------------------------------------------------------

const M64 = (1n << 64n) - 1n;

class SplitMix64 {
    constructor(seed) {
        this.state = BigInt.asUintN(64, BigInt(seed));
    }
    next64() {
        this.state = (this.state + 0x9E3779B97F4A7C15n) & M64;
        let z = this.state;
        z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & M64;
        z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & M64;
        return z ^ (z >> 31n);
    }
    // uniform integer in [0, 2^nbits)
    bits(nbits) {
        let v = 0n;
        for (let got = 0; got < nbits; got += 64) v = (v << 64n) | this.next64();
        return v & ((1n << BigInt(nbits)) - 1n);
    }
    // uniform BigInt in [0, n)
    below(n) {
        n = BigInt(n);
        if (n <= 0n) throw new Error("below: empty range");
        if (n === 1n) return 0n;
        const nb = bitLen(n - 1n);
        for (;;) {
            const v = this.bits(nb);
            if (v < n) return v;
        }
    }
    // uniform BigInt in [lo, hi)
    range(lo, hi) {
        return lo + this.below(hi - lo);
    }
    // uniform JS number in [0, k)
    int(k) {
        return Number(this.below(BigInt(k)));
    }
}

// ---------------------------------------------------------------------------
// BigInt helpers and encoding
// ---------------------------------------------------------------------------

function bitLen(x) {
    return x === 0n ? 0 : x.toString(2).length;
}

function mod(a, p) {
    const r = a % p;
    return r < 0n ? r + p : r;
}

function modpow(b, e, p) {
    let r = 1n % p;
    b = mod(b, p);
    while (e > 0n) {
        if (e & 1n) r = (r * b) % p;
        b = (b * b) % p;
        e >>= 1n;
    }
    return r;
}

function modinv(a, p) {
    a = mod(a, p);
    if (a === 0n) throw new Error("modinv(0)");
    let [t, nt, r, nr] = [0n, 1n, p, a];
    while (nr !== 0n) {
        const q = r / nr;
        [t, nt] = [nt, t - q * nt];
        [r, nr] = [nr, r - q * nr];
    }
    if (r !== 1n) throw new Error("modinv: not invertible");
    return mod(t, p);
}

function leHex(x, n8) {
    x = BigInt(x);
    if (x < 0n || x >= (1n << BigInt(8 * n8))) throw new Error(`leHex: ${x} does not fit in ${n8} bytes`);
    const be = x.toString(16).padStart(2 * n8, "0");
    let s = "";
    for (let i = 2 * n8 - 2; i >= 0; i -= 2) s += be[i] + be[i + 1];
    return s;
}

function parseLeHex(s) {
    let x = 0n;
    for (let i = s.length - 2; i >= 0; i -= 2) x = (x << 8n) | BigInt(parseInt(s.substr(i, 2), 16));
    return x;
}

function bytesHex(u8) {
    return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString("hex");
}

function scalarBytes(k) {
    // 32-byte little-endian Uint8Array of an integer in [0, 2^256)
    const out = new Uint8Array(32);
    let x = BigInt(k);
    if (x < 0n || x >= (1n << 256n)) throw new Error("scalar out of range");
    for (let i = 0; i < 32; i++) {
        out[i] = Number(x & 0xffn);
        x >>= 8n;
    }
    return out;
}

const scalarHex = (k) => leHex(k, 32);
const TWO256 = 1n << 256n;

function check(cond, msg) {
    if (!cond) throw new Error("SELF-CHECK FAILED: " + msg);
}

// ---------------------------------------------------------------------------
// Plain BigInt oracle fields (used only for self-checks)
// ---------------------------------------------------------------------------

class OFp {
    constructor(p) {
        this.p = p;
        this.zero = 0n;
        this.one = 1n;
    }
    add(a, b) { return mod(a + b, this.p); }
    sub(a, b) { return mod(a - b, this.p); }
    mul(a, b) { return (a * b) % this.p; }
    sqr(a) { return (a * a) % this.p; }
    neg(a) { return mod(-a, this.p); }
    inv(a) { return modinv(a, this.p); }
    pow(a, e) { return modpow(a, e, this.p); }
    eq(a, b) { return a === b; }
    isZero(a) { return a === 0n; }
    isSquare(a) { return a === 0n || modpow(a, (this.p - 1n) / 2n, this.p) === 1n; }
    small(n) { return mod(BigInt(n), this.p); }
}

// Fp2 = Fp[u]/(u^2 + 1): the representation used by BN254 and BLS12-381.
class OFp2 {
    constructor(F) {
        this.F = F;
        this.p = F.p;
        this.zero = [0n, 0n];
        this.one = [1n, 0n];
    }
    add(a, b) { return [this.F.add(a[0], b[0]), this.F.add(a[1], b[1])]; }
    sub(a, b) { return [this.F.sub(a[0], b[0]), this.F.sub(a[1], b[1])]; }
    neg(a) { return [this.F.neg(a[0]), this.F.neg(a[1])]; }
    mul(a, b) {
        const F = this.F;
        return [F.sub(F.mul(a[0], b[0]), F.mul(a[1], b[1])), F.add(F.mul(a[0], b[1]), F.mul(a[1], b[0]))];
    }
    sqr(a) { return this.mul(a, a); }
    norm(a) { return this.F.add(this.F.sqr(a[0]), this.F.sqr(a[1])); }
    inv(a) {
        const t = this.F.inv(this.norm(a));
        return [this.F.mul(a[0], t), this.F.neg(this.F.mul(a[1], t))];
    }
    pow(a, e) {
        let r = this.one, b = a;
        while (e > 0n) {
            if (e & 1n) r = this.mul(r, b);
            b = this.sqr(b);
            e >>= 1n;
        }
        return r;
    }
    eq(a, b) { return a[0] === b[0] && a[1] === b[1]; }
    isZero(a) { return a[0] === 0n && a[1] === 0n; }
    // a is a square in Fp2 iff its norm is a square in Fp
    isSquare(a) { return this.F.isSquare(this.norm(a)); }
    small(n) { return [this.F.small(n), 0n]; }
}

// Short Weierstrass y^2 = x^3 + b over an oracle field, Jacobian internally.
// Affine points are {x, y}; infinity is null.
class OCurve {
    constructor(F, b) {
        this.F = F;
        this.b = b;
    }
    onCurve(P) {
        if (P === null) return true;
        const F = this.F;
        return F.eq(F.sqr(P.y), F.add(F.mul(F.sqr(P.x), P.x), this.b));
    }
    neg(P) { return P === null ? null : { x: P.x, y: this.F.neg(P.y) }; }
    eq(P, Q) {
        if (P === null || Q === null) return P === Q;
        return this.F.eq(P.x, Q.x) && this.F.eq(P.y, Q.y);
    }
    toJ(P) { return P === null ? { X: this.F.one, Y: this.F.one, Z: this.F.zero } : { X: P.x, Y: P.y, Z: this.F.one }; }
    toA(J) {
        const F = this.F;
        if (F.isZero(J.Z)) return null;
        const zi = F.inv(J.Z), zi2 = F.sqr(zi), zi3 = F.mul(zi2, zi);
        return { x: F.mul(J.X, zi2), y: F.mul(J.Y, zi3) };
    }
    dblJ(J) {
        const F = this.F;
        if (F.isZero(J.Z) || F.isZero(J.Y)) return { X: F.one, Y: F.one, Z: F.zero };
        const A = F.sqr(J.X), B = F.sqr(J.Y), C = F.sqr(B);
        let D = F.sub(F.sub(F.sqr(F.add(J.X, B)), A), C);
        D = F.add(D, D);
        const E = F.add(F.add(A, A), A);
        const Fv = F.sqr(E);
        const X3 = F.sub(Fv, F.add(D, D));
        let C8 = F.add(C, C); C8 = F.add(C8, C8); C8 = F.add(C8, C8);
        const Y3 = F.sub(F.mul(E, F.sub(D, X3)), C8);
        const YZ = F.mul(J.Y, J.Z);
        return { X: X3, Y: Y3, Z: F.add(YZ, YZ) };
    }
    addJ(P, Q) {
        const F = this.F;
        if (F.isZero(P.Z)) return Q;
        if (F.isZero(Q.Z)) return P;
        const Z1Z1 = F.sqr(P.Z), Z2Z2 = F.sqr(Q.Z);
        const U1 = F.mul(P.X, Z2Z2), U2 = F.mul(Q.X, Z1Z1);
        const S1 = F.mul(F.mul(P.Y, Q.Z), Z2Z2), S2 = F.mul(F.mul(Q.Y, P.Z), Z1Z1);
        const H = F.sub(U2, U1), R = F.sub(S2, S1);
        if (F.isZero(H)) {
            if (F.isZero(R)) return this.dblJ(P);
            return { X: F.one, Y: F.one, Z: F.zero };
        }
        const H2 = F.sqr(H), H3 = F.mul(H, H2), U1H2 = F.mul(U1, H2);
        const X3 = F.sub(F.sub(F.sqr(R), H3), F.add(U1H2, U1H2));
        const Y3 = F.sub(F.mul(R, F.sub(U1H2, X3)), F.mul(S1, H3));
        const Z3 = F.mul(F.mul(P.Z, Q.Z), H);
        return { X: X3, Y: Y3, Z: Z3 };
    }
    add(P, Q) { return this.toA(this.addJ(this.toJ(P), this.toJ(Q))); }
    dbl(P) { return this.toA(this.dblJ(this.toJ(P))); }
    // integer multiple (k not reduced)
    mul(P, k) {
        let R = { X: this.F.one, Y: this.F.one, Z: this.F.zero };
        const B = this.toJ(P);
        for (let i = bitLen(k) - 1; i >= 0; i--) {
            R = this.dblJ(R);
            if ((k >> BigInt(i)) & 1n) R = this.addJ(R, B);
        }
        return this.toA(R);
    }
}

// ---------------------------------------------------------------------------
// Library adapters: expose ffjavascript fields with normal-form BigInt I/O
// ---------------------------------------------------------------------------

// WasmField1 (curve.F1 / curve.Fr). Internally elements are n8-byte
// little-endian Montgomery buffers.
class WasmF1 {
    constructor(F) {
        this.L = F;
        this.p = F.p;
        this.n8 = F.n8;
    }
    m(x) { return this.L.fromObject(x); }
    o(buf) { return this.L.toObject(buf); }
    add(a, b) { return this.o(this.L.add(this.m(a), this.m(b))); }
    sub(a, b) { return this.o(this.L.sub(this.m(a), this.m(b))); }
    mul(a, b) { return this.o(this.L.mul(this.m(a), this.m(b))); }
    square(a) { return this.o(this.L.square(this.m(a))); }
    neg(a) { return this.o(this.L.neg(this.m(a))); }
    inv(a) { return this.o(this.L.inv(this.m(a))); }
    pow(a, e) { return this.o(this.L.exp(this.m(a), scalarBytes(e))); }
    isSquare(a) { return this.L.isSquare(this.m(a)); }
    // NOTE: the wasm sqrt does not terminate on non-squares, so guard it.
    sqrt(a) { return this.isSquare(a) ? this.o(this.L.sqrt(this.m(a))) : null; }
    // The library's own storage encoding of a: WasmField1 has no toRprLEM;
    // its element buffers ARE the little-endian Montgomery bytes (this is
    // what snarkjs writes into .zkey files), so emit the buffer itself.
    montHex(a) { return bytesHex(this.m(a)); }
    enc(a) { return leHex(a, this.n8); }
}

// F1Field (pure JS, BigInt elements in normal form) - used for Goldilocks.
class JsF1 {
    constructor(F) {
        this.L = F;
        this.p = F.p;
        this.n8 = F.n8;
    }
    add(a, b) { return this.L.add(a, b); }
    sub(a, b) { return this.L.sub(a, b); }
    mul(a, b) { return this.L.mul(a, b); }
    square(a) { return this.L.square(a); }
    neg(a) { return this.L.neg(a); }
    inv(a) { return this.L.inv(a); }
    pow(a, e) { return this.L.pow(a, e); }
    sqrt(a) { return this.L.sqrt(a); } // null for non-squares
    isSquare(a) { return this.L.sqrt(a) !== null; } // F1Field has no isSquare
    montHex(a) {
        const buf = new Uint8Array(this.n8);
        this.L.toRprLEM(buf, 0, a);
        return bytesHex(buf);
    }
    enc(a) { return leHex(a, this.n8); }
}

// WasmField2 (curve.F2). Elements are 2*n8 buffers: c0 then c1, Montgomery.
// NOTE: WasmField2.e([c0,c1]) is broken in 0.3.1 (writes c1 at offset 2*n8
// and throws); fromObject/toObject are fine and used here.
class WasmF2 {
    constructor(F2) {
        this.L = F2;
        this.n8 = F2.F.n8;
    }
    m(x) { return this.L.fromObject(x); }
    o(buf) { return this.L.toObject(buf); }
    add(a, b) { return this.o(this.L.add(this.m(a), this.m(b))); }
    sub(a, b) { return this.o(this.L.sub(this.m(a), this.m(b))); }
    mul(a, b) { return this.o(this.L.mul(this.m(a), this.m(b))); }
    square(a) { return this.o(this.L.square(this.m(a))); }
    neg(a) { return this.o(this.L.neg(this.m(a))); }
    inv(a) { return this.o(this.L.inv(this.m(a))); }
    isSquare(a) { return this.L.isSquare(this.m(a)); }
    sqrt(a) { return this.isSquare(a) ? this.o(this.L.sqrt(this.m(a))) : null; }
    enc(a) { return [leHex(a[0], this.n8), leHex(a[1], this.n8)]; }
}

// ---------------------------------------------------------------------------
// fields.json
// ---------------------------------------------------------------------------

function genPrimeField(lib, orc, rbits, nRandom, rng) {
    const p = orc.p, n8 = lib.n8;
    const R = mod(1n << BigInt(rbits), p);
    const rnd = () => rng.below(p);
    // a known non-square (smallest, computed independently)
    let qnr = 2n;
    while (orc.isSquare(qnr)) qnr++;

    const pairs = [
        [0n, rnd()], [1n, rnd()], [p - 1n, rnd()],
        [rnd(), 0n], [rnd(), p - 1n],
        (() => { const x = rnd(); return [x, x]; })(),
        [0n, 0n], [1n, 1n], [p - 1n, p - 1n], [p - 1n, 1n], [1n, p - 1n],
        [2n, p - 2n], [qnr, rnd()], [(p - 1n) / 2n, (p + 1n) / 2n],
        [rng.bits(32), rng.bits(32)], [p - 1n - rng.bits(32), rng.bits(32)],
    ];
    for (let i = 0; i < nRandom; i++) pairs.push([rnd(), rnd()]);

    // exponent edge cases (only those < 2^256), then random 256-bit
    const edgeExps = [0n, 1n, 2n, 3n, p - 2n, p - 1n, p, p + 1n, (p - 1n) / 2n, TWO256 - 1n, 1n << 255n]
        .filter((e) => e >= 0n && e < TWO256);

    const cases = [];
    pairs.forEach(([a, b], idx) => {
        let e;
        if (idx === 0) e = rng.bits(256) | 1n;               // 0^e with e != 0
        else if (idx === 1) e = 0n;                           // 1^0
        else if (idx >= 16 && idx - 16 < edgeExps.length) e = edgeExps[idx - 16];
        else e = rng.bits(256);

        const c = {
            a: lib.enc(a), b: lib.enc(b),
            add: lib.enc(lib.add(a, b)),
            sub: lib.enc(lib.sub(a, b)),
            mul: lib.enc(lib.mul(a, b)),
            square: lib.enc(lib.square(a)),
            neg: lib.enc(lib.neg(a)),
            inv: a === 0n ? null : lib.enc(lib.inv(a)),
            pow_e: scalarHex(e),
            pow: lib.enc(lib.pow(a, e)),
            a_mont: lib.montHex(a),
        };
        const s = lib.sqrt(a);
        const isSq = lib.isSquare(a);
        c.sqrt = s === null ? null : lib.enc(s);
        c.is_square = isSq;

        // self-checks against the BigInt oracle
        const d = (h) => parseLeHex(h);
        check(d(c.a) === a && d(c.b) === b, "encoding round trip");
        check(d(c.add) === orc.add(a, b), "add");
        check(d(c.sub) === orc.sub(a, b), "sub");
        check(d(c.mul) === orc.mul(a, b), "mul");
        check(d(c.square) === orc.sqr(a), "square");
        check(d(c.neg) === orc.neg(a), "neg");
        if (a !== 0n) check(orc.mul(d(c.inv), a) === 1n, "a*inv(a) = 1");
        check(d(c.pow) === orc.pow(a, e), "pow");
        check(d(c.a_mont) === orc.mul(a, R), "a_mont = a*R mod p");
        check(isSq === orc.isSquare(a), "is_square vs Euler criterion");
        check((s !== null) === isSq, "sqrt null iff non-square");
        if (s !== null) check(orc.sqr(s) === a, "sqrt^2 = a");
        // library convention (prime fields): the root in [0, (p-1)/2]
        if (s !== null) check(s <= (p - 1n) / 2n, "sqrt is the non-negative root");
        cases.push(c);
    });
    return { modulus: leHex(p, n8), n8, montgomery_r_bits: rbits, cases };
}

function genFq2(lib, orc, nRandom, rng) {
    const p = orc.p;
    const rnd = () => [rng.below(p), rng.below(p)];
    let qnr = 2n;
    while (orc.F.isSquare(qnr)) qnr++;
    const pairs = [
        [[0n, 0n], rnd()], [[1n, 0n], rnd()], [[rng.below(p), 0n], rnd()],
        [[qnr, 0n], rnd()],          // c1 = 0 with c0 a non-square of Fp (still a square in Fp2)
        [[0n, 1n], rnd()], [[0n, rng.below(p)], rnd()],
        [[p - 1n, p - 1n], rnd()],
        [rnd(), [0n, 0n]], [rnd(), [1n, 0n]],
        (() => { const x = rnd(); return [x, x]; })(),
    ];
    for (let i = 0; i < nRandom; i++) pairs.push([rnd(), rnd()]);
    const cases = [];
    for (const [a, b] of pairs) {
        const aZero = a[0] === 0n && a[1] === 0n;
        const s = lib.sqrt(a);
        const isSq = lib.isSquare(a);
        const c = {
            a: lib.enc(a), b: lib.enc(b),
            add: lib.enc(lib.add(a, b)),
            sub: lib.enc(lib.sub(a, b)),
            mul: lib.enc(lib.mul(a, b)),
            square: lib.enc(lib.square(a)),
            neg: lib.enc(lib.neg(a)),
            inv: aZero ? null : lib.enc(lib.inv(a)),
            sqrt: s === null ? null : lib.enc(s),
            is_square: isSq,
        };
        const d = (h) => [parseLeHex(h[0]), parseLeHex(h[1])];
        check(orc.eq(d(c.a), a) && orc.eq(d(c.b), b), "fq2 encoding");
        check(orc.eq(d(c.add), orc.add(a, b)), "fq2 add");
        check(orc.eq(d(c.sub), orc.sub(a, b)), "fq2 sub");
        check(orc.eq(d(c.mul), orc.mul(a, b)), "fq2 mul (u^2 = -1)");
        check(orc.eq(d(c.square), orc.sqr(a)), "fq2 square");
        check(orc.eq(d(c.neg), orc.neg(a)), "fq2 neg");
        if (!aZero) check(orc.eq(orc.mul(d(c.inv), a), orc.one), "fq2 a*inv(a) = 1");
        check(isSq === orc.isSquare(a), "fq2 is_square vs norm criterion");
        check((s !== null) === isSq, "fq2 sqrt null iff non-square");
        if (s !== null) check(orc.eq(orc.sqr(s), a), "fq2 sqrt^2 = a");
        cases.push(c);
    }
    return { modulus: leHex(p, lib.n8), n8: lib.n8, montgomery_r_bits: lib.n8 * 8, cases };
}

// ---------------------------------------------------------------------------
// roots.json / fft.json
// ---------------------------------------------------------------------------

// Uniform view of the three FFT fields. Values are normal-form BigInts.
function wasmFrView(name, Fr) {
    const n8 = Fr.n8;
    const toBuf = (arr) => {
        const buf = new Uint8Array(arr.length * n8);
        arr.forEach((x, i) => buf.set(Fr.fromObject(x), i * n8));
        return buf;
    };
    const fromBuf = (buf) => {
        const out = [];
        for (let i = 0; i < buf.byteLength / n8; i++) out.push(Fr.toObject(buf.slice(i * n8, (i + 1) * n8)));
        return out;
    };
    return {
        name, n8, p: Fr.p, s: Fr.s,
        w: Fr.w.map((x) => Fr.toObject(x)),
        nqr: Fr.toObject(Fr.nqr),
        shift: Fr.shift === undefined ? null : Fr.toObject(Fr.shift),
        fft: async (arr) => fromBuf(await Fr.fft(toBuf(arr))),
        ifft: async (arr) => fromBuf(await Fr.ifft(toBuf(arr))),
        how: "curve.Fr.fft / curve.Fr.ifft (wasm, Montgomery buffers)",
    };
}

// provd's Goldilocks domain is the STARK ecosystem's (Plonky2, Polygon's goldilocks library,
// pil-stark): w_32 = 7277203076849721926, not ffjavascript's nqr^t. pil-stark's copy of this
// very FFT class takes that root as its `w0` argument; ffjavascript's has no such argument, so
// its root tables are rebuilt from w0 the way its constructor builds them from nqr^t.
const GOLDILOCKS_W32 = 7277203076849721926n;
function rebaseRoots(F, w0) {
    const fft = F.FFT;
    const s = F.s;
    fft.w[s] = w0;
    fft.wi[s] = F.inv(w0);
    for (let k = s - 1; k >= 0; k--) {
        fft.w[k] = F.square(fft.w[k + 1]);
        fft.wi[k] = F.square(fft.wi[k + 1]);
    }
    fft.roots = [];
    fft._setRoots(Math.min(s, 15));
    F.twoAdicRoot = w0;
}

function jsF1View(name, F) {
    return {
        name, n8: F.n8, p: F.p, s: F.s,
        w: F.w.slice(),
        w_max: F.twoAdicRoot === undefined ? null : F.twoAdicRoot,
        nqr: F.nqr,
        shift: F.shift === undefined ? null : F.shift,
        fft: async (arr) => F.fft(arr.slice()),
        ifft: async (arr) => F.ifft(arr.slice()),
        how: "F1Field.fft / F1Field.ifft (ffjavascript src/fft.js, recursive radix-2)",
    };
}

function genRoots(v) {
    const o = new OFp(v.p);
    let t = v.p - 1n, s = 0;
    while ((t & 1n) === 0n) { t >>= 1n; s++; }
    check(s === v.s, `${v.name}: two-adicity`);
    check(v.w.length === s + 1, `${v.name}: w has s+1 entries`);
    check(!o.isSquare(v.nqr), `${v.name}: nqr is a non-residue`);
    if (v.w_max === undefined || v.w_max === null) {
        check(v.w[s] === o.pow(v.nqr, t), `${v.name}: w[s] = nqr^t`);
    } else {
        check(v.w[s] === v.w_max, `${v.name}: w[s] = the field's chosen 2-adic root`);
    }
    for (let k = 0; k <= s; k++) {
        const n = 1n << BigInt(k);
        check(o.pow(v.w[k], n) === 1n, `${v.name}: w[${k}]^(2^${k}) = 1`);
        if (k > 0) check(o.pow(v.w[k], n / 2n) === v.p - 1n, `${v.name}: w[${k}] primitive`);
        if (k < s) check(o.sqr(v.w[k + 1]) === v.w[k], `${v.name}: w[k] = w[k+1]^2`);
    }
    return {
        two_adicity: s,
        roots: v.w.map((x) => leHex(x, v.n8)),
        nqr: leHex(v.nqr, v.n8),
        shift: v.shift === null ? null : leHex(v.shift, v.n8),
    };
}

// evaluate polynomial with coefficients c at x (Horner)
function horner(o, c, x) {
    let r = 0n;
    for (let j = c.length - 1; j >= 0; j--) r = o.add(o.mul(r, x), c[j]);
    return r;
}

// indices at which to check a transform directly: all of them for small n
function checkIndices(n, rng) {
    if (n <= 64) return [...Array(n).keys()];
    const idx = new Set([0, 1, 2, n / 2, n - 1]);
    while (idx.size < 16) idx.add(rng.int(n));
    return [...idx];
}

async function genFFT(v, logSizes, cosetLogSizes, rng) {
    const o = new OFp(v.p);
    const enc = (arr) => arr.map((x) => leHex(x, v.n8));
    const cases = [];
    for (const logN of logSizes) {
        const n = 1 << logN;
        const w = v.w[logN];
        const input = Array.from({ length: n }, () => rng.below(v.p));
        const out = await v.fft(input);
        const inv = await v.ifft(input);
        check(out.length === n && inv.length === n, `${v.name}: fft length`);
        // natural order in and out: out[i] = sum_j input[j] * w^(i*j)
        for (const i of checkIndices(n, rng)) {
            check(out[i] === horner(o, input, o.pow(w, BigInt(i))), `${v.name} fft log_n=${logN} index ${i}`);
            // ifft: input[i] = sum_j inv[j] * w^(i*j)
            check(input[i] === horner(o, inv, o.pow(w, BigInt(i))), `${v.name} ifft log_n=${logN} index ${i}`);
        }
        const back = await v.fft(inv);
        check(back.every((x, i) => x === input[i]), `${v.name}: fft(ifft(x)) = x, log_n=${logN}`);
        const back2 = await v.ifft(out);
        check(back2.every((x, i) => x === input[i]), `${v.name}: ifft(fft(x)) = x, log_n=${logN}`);
        cases.push({ log_n: logN, input: enc(input), fft: enc(out), ifft: enc(inv) });
    }

    const coset = [];
    for (const logN of cosetLogSizes) {
        const n = 1 << logN;
        const shifts = [
            ["shift", v.shift !== null ? v.shift : v.nqr],
            ["odd", v.w[logN + 1]],
        ];
        for (const [kind, shift] of shifts) {
            const input = Array.from({ length: n }, () => rng.below(v.p));
            const scaled = [];
            let sp = 1n;
            for (let j = 0; j < n; j++) { scaled.push(o.mul(input[j], sp)); sp = o.mul(sp, shift); }
            const out = await v.fft(scaled);
            const w = v.w[logN];
            for (const i of checkIndices(n, rng)) {
                check(out[i] === horner(o, input, o.mul(shift, o.pow(w, BigInt(i)))), `${v.name} coset(${kind}) log_n=${logN} index ${i}`);
            }
            coset.push({ log_n: logN, kind, shift: leHex(shift, v.n8), input: enc(input), output: enc(out) });
        }
    }
    return { two_adicity: v.s, cases, coset_fft: coset };
}

// ---------------------------------------------------------------------------
// Curves
// ---------------------------------------------------------------------------

// Adapter between a library WasmCurve group and oracle affine points.
class Group {
    constructor(curveName, gname, G, ocurve, r, fieldIsF2) {
        this.name = `${curveName}.${gname}`;
        this.G = G;
        this.O = ocurve;
        this.r = r;
        this.f2 = fieldIsF2;
        this.n8 = fieldIsF2 ? G.F.F.n8 : G.F.n8;
        this.sAff = G.F.n8 * 2;
        const z = G.zeroAffine;
        check(z.every((b) => b === 0), `${this.name}: library zeroAffine is all-zero bytes`);
    }
    // library buffer (affine or jacobian) -> oracle affine point
    // A Jacobian buffer with Z != 0 whose affine form is all-zero is the
    // library's non-canonical infinity (see README); it is read as infinity,
    // exactly as snarkjs would store it after toAffine.
    fromLib(buf, what) {
        if (this.G.isZero(buf)) return null;
        const aff = this.G.toAffine(buf);
        if (aff.every((b) => b === 0)) {
            if (this.onNonCanonical) this.onNonCanonical(this.name, what || "?");
            return null;
        }
        const o = this.G.toObject(aff);
        return { x: o[0], y: o[1] };
    }
    // oracle affine point -> library affine buffer (Montgomery)
    toLib(P) {
        if (P === null) return this.G.zeroAffine.slice();
        return this.G.fromObject([P.x, P.y]);
    }
    encCoord(c) {
        return this.f2 ? [leHex(c[0], this.n8), leHex(c[1], this.n8)] : leHex(c, this.n8);
    }
    enc(P) {
        if (P === null) return this.f2 ? [[leHex(0n, this.n8), leHex(0n, this.n8)], [leHex(0n, this.n8), leHex(0n, this.n8)]]
            : [leHex(0n, this.n8), leHex(0n, this.n8)];
        check(this.O.onCurve(P), `${this.name}: emitted point is on the curve`);
        return [this.encCoord(P.x), this.encCoord(P.y)];
    }
    // library: k*G for the generator
    libMulGen(k) {
        return this.fromLib(this.G.timesScalar(this.G.g, scalarBytes(k)));
    }
    inSubgroupLib(P) {
        return this.G.isZero(this.G.timesScalar(this.toLib(P), scalarBytes(this.r)));
    }
}

function genGroup(grp, nRandom, rng, curveFq, quirk) {
    const { G, O, r } = grp;
    const gen = grp.fromLib(G.g);
    check(O.onCurve(gen), `${grp.name}: generator on curve`);
    check(O.mul(gen, r) === null, `${grp.name}: r*G = O (oracle)`);
    check(grp.inSubgroupLib(gen), `${grp.name}: r*G = O (library)`);

    const randPt = () => {
        const d = rng.range(1n, r);
        const P = grp.libMulGen(d);
        check(grp.inSubgroupLib(P), `${grp.name}: random point in the subgroup`);
        return P;
    };

    const edgeK = [0n, 1n, 2n, r - 1n, r, r + 1n, TWO256 - 1n, r - 2n, 1n << 255n, 2n * r];
    const specs = [];
    { const P = randPt(); specs.push({ p: P, q: P, k: rng.below(r), tag: "p=q" }); }
    { const P = randPt(); specs.push({ p: P, q: O.neg(P), k: rng.below(r), tag: "q=-p" }); }
    specs.push({ p: null, q: randPt(), k: rng.below(r), tag: "p=inf" });
    specs.push({ p: randPt(), q: null, k: rng.below(r), tag: "q=inf" });
    specs.push({ p: null, q: null, k: rng.below(r), tag: "p=q=inf" });
    specs.push({ p: gen, q: gen, k: 2n, tag: "generator" });
    for (const k of edgeK) if (k < TWO256) specs.push({ p: randPt(), q: randPt(), k, tag: "k-edge" });
    specs.push({ p: null, q: randPt(), k: TWO256 - 1n, tag: "inf*kmax" });
    for (let i = 0; i < nRandom; i++) {
        // mostly reduced scalars, some full 256-bit ones
        const k = i % 4 === 3 ? rng.bits(256) : rng.below(r);
        specs.push({ p: randPt(), q: randPt(), k, tag: "random" });
    }

    // The library results are taken with Jacobian inputs (G.toJacobian maps
    // the all-zero affine buffer to the proper Jacobian infinity).  The
    // affine / mixed entry points must agree after affine normalisation.
    const cases = [];
    for (const s of specs) {
        const pb = grp.toLib(s.p), qb = grp.toLib(s.q);
        const pj = G.toJacobian(pb), qj = G.toJacobian(qb);
        const kb = scalarBytes(s.k);
        const add = grp.fromLib(G.add(pj, qj));
        const dbl = grp.fromLib(G.double(pj));
        const neg = grp.fromLib(G.neg(pj));
        const mul = grp.fromLib(G.timesScalar(pj, kb));
        check(O.eq(add, O.add(s.p, s.q)), `${grp.name} ${s.tag}: add vs oracle`);
        check(O.eq(dbl, O.dbl(s.p)), `${grp.name} ${s.tag}: double vs oracle`);
        check(O.eq(neg, O.neg(s.p)), `${grp.name} ${s.tag}: neg vs oracle`);
        check(O.eq(mul, O.mul(s.p, s.k)), `${grp.name} ${s.tag}: mul vs oracle`);
        if (s.tag === "p=q") check(O.eq(add, dbl), `${grp.name}: p=q => add = double`);
        if (s.tag === "q=-p") check(add === null, `${grp.name}: q=-p => add = inf`);
        // affine / mixed entry points of the library
        const alt = [
            ["add(affine,affine)", G.add(pb, qb), add],
            ["add(jacobian,affine)", G.add(pj, qb), add],
            ["add(affine,jacobian)", G.add(pb, qj), add],
            ["double(affine)", G.double(pb), dbl],
            ["neg(affine)", G.neg(pb), neg],
            ["timesScalar(affine)", G.timesScalar(pb, kb), mul],
        ];
        for (const [what, got, want] of alt) {
            check(O.eq(grp.fromLib(got, `${what} with ${s.tag}`), want), `${grp.name} ${s.tag}: ${what} agrees with the Jacobian path`);
        }
        cases.push({ p: grp.enc(s.p), q: grp.enc(s.q), add: grp.enc(add), double: grp.enc(dbl), neg: grp.enc(neg), k: scalarHex(s.k), mul: grp.enc(mul) });
    }

    // off-curve points
    const F = O.F;
    const rndF = () => (grp.f2 ? [rng.below(curveFq), rng.below(curveFq)] : rng.below(curveFq));
    const offCurve = [];
    const pushOff = (x, y) => {
        const P = { x, y };
        check(!O.onCurve(P), `${grp.name}: off_curve point is off the curve (oracle)`);
        check(!G.isValid(G.fromObject([x, y])), `${grp.name}: off_curve point rejected by library isValid`);
        offCurve.push([grp.encCoord(x), grp.encCoord(y)]);
    };
    for (let i = 0; i < 3; i++) {
        let x, y;
        do { x = rndF(); y = rndF(); } while (O.onCurve({ x, y }));
        pushOff(x, y);
    }
    { const P = randPt(); pushOff(P.x, F.add(P.y, F.one)); }   // valid point with y+1
    { const P = randPt(); pushOff(F.add(P.x, F.one), P.y); }   // valid point with x+1

    // on-curve points outside the order-r subgroup
    const notInSub = [];
    if (grp.name !== "bn254.g1") {
        const FL = G.F;
        const bL = G.b;
        while (notInSub.length < 3) {
            const x = rndF();
            const xl = FL.fromObject(x);
            const rhs = FL.add(FL.mul(FL.square(xl), xl), bL);
            if (!FL.isSquare(rhs)) continue;
            const y = FL.toObject(FL.sqrt(rhs));
            const P = { x, y };
            check(O.onCurve(P), `${grp.name}: not_in_subgroup point is on curve (oracle)`);
            check(G.isValid(grp.toLib(P)), `${grp.name}: not_in_subgroup point on curve (library)`);
            const rP = G.timesScalar(grp.toLib(P), scalarBytes(r));
            if (G.isZero(rP)) continue;     // (negligible probability) landed in the subgroup
            check(O.mul(P, r) !== null, `${grp.name}: r*P != O (oracle)`);
            notInSub.push([grp.encCoord(P.x), grp.encCoord(P.y)]);
        }
    } else {
        // cofactor 1: every curve point is in the subgroup; nothing to emit
        check(G.cofactor === undefined, "bn254.g1 cofactor 1");
    }

    return {
        generator: grp.enc(gen),
        order_r: scalarHex(r),
        cases,
        off_curve: offCurve,
        not_in_subgroup: notInSub,
    };
}

// ---------------------------------------------------------------------------
// MSM
// ---------------------------------------------------------------------------

// Pool of n random subgroup points with known discrete logs, cheaply:
// 64 library k*G, the rest as running sums P_i = P_{i-1} + B_j.
function makePool(grp, n, rng) {
    const { G, r } = grp;
    const nb = Math.min(64, n);
    const baseJ = [], baseD = [];
    for (let i = 0; i < nb; i++) {
        const d = rng.range(1n, r);
        baseJ.push(G.timesScalar(G.g, scalarBytes(d)));
        baseD.push(d);
    }
    const pts = [], dl = [];
    let cur = null, curD = 0n;
    for (let i = 0; i < n; i++) {
        let J, d;
        if (i < nb) { J = baseJ[i]; d = baseD[i]; } else {
            const j = rng.int(nb);
            J = G.add(cur, baseJ[j]);
            d = mod(curD + baseD[j], r);
        }
        if (G.isZero(J)) { J = baseJ[0]; d = baseD[0]; } // (negligible) avoid infinity in the pool
        cur = J; curD = d;
        const A = G.toAffine(J);
        const P = grp.fromLib(A);
        check(grp.O.onCurve(P), `${grp.name}: pool point on curve`);
        pts.push(P);
        dl.push(d);
    }
    return { pts, dl };
}

async function genMsmGroup(grp, sizes, pool, rng, quirk) {
    const { G, O, r } = grp;
    const gen = grp.fromLib(G.g);
    const cases = [];

    const libMsm = async (pts, scalars, name) => {
        const n = pts.length;
        const pb = new Uint8Array(n * grp.sAff);
        const sb = new Uint8Array(n * 32);
        pts.forEach((P, i) => pb.set(grp.toLib(P), i * grp.sAff));
        scalars.forEach((k, i) => sb.set(scalarBytes(k), i * 32));
        return grp.fromLib(await G.multiExpAffine(pb, sb), `multiExpAffine (${name})`);
    };

    // pts: oracle points (null = infinity), dls: discrete logs (0 for infinity)
    // Infinity is passed to the library as an all-zero affine point (as in
    // .zkey files).  wasmcurves' addMixed turns "Jacobian zero + all-zero
    // affine" into the non-canonical (0,0,1), which toAffine still maps to
    // all-zero, so results are compared after affine normalisation.  Cases
    // with infinity are also computed with those terms removed.
    const emit = async (name, pts, dls, scalars) => {
        const n = pts.length;
        // independent expectation: (sum k_i * d_i mod r) * G with the BigInt oracle
        let acc = 0n;
        for (let i = 0; i < n; i++) acc = mod(acc + mod(scalars[i], r) * dls[i], r);
        const expect = O.mul(gen, acc);
        let res = await libMsm(pts, scalars, name);
        if (pts.some((P) => P === null)) {
            // also run the library without the infinity terms
            const keep = [...Array(n).keys()].filter((i) => pts[i] !== null);
            const res2 = await libMsm(keep.map((i) => pts[i]), keep.map((i) => scalars[i]), name + ", infinity removed");
            check(O.eq(res2, expect), `${grp.name} msm ${name}: library multiExpAffine (infinity terms removed) vs oracle`);
            if (!O.eq(res, expect)) {
                quirk(`${grp.name}: multiExpAffine with all-zero (infinity) points in the buffer gave a WRONG result in case ${name}; the expected value was computed with those terms excluded`);
                res = res2;
            }
        }
        check(O.eq(res, expect), `${grp.name} msm ${name}: library multiExpAffine vs oracle`);
        cases.push({ name, points: pts.map((P) => grp.enc(P)), scalars: scalars.map(scalarHex), result: grp.enc(res) });
        return res;
    };

    const take = (n) => {
        const off = rng.int(pool.pts.length);
        const pts = [], dls = [];
        for (let i = 0; i < n; i++) {
            const j = (off + i) % pool.pts.length;
            pts.push(pool.pts[j]);
            dls.push(pool.dl[j]);
        }
        return { pts, dls };
    };
    const randScalars = (n) => Array.from({ length: n }, () => rng.below(r));

    for (const n of sizes) {
        const { pts, dls } = take(n);
        await emit(`random_${n}`, pts, dls, randScalars(n));
    }

    const M = 64;
    {
        const { pts, dls } = take(M);
        await emit(`all_scalars_zero_${M}`, pts, dls, Array(M).fill(0n));
    }
    {
        const { pts, dls } = take(M);
        const sc = randScalars(M).map((k, i) => (i % 3 === 0 ? 0n : k));
        await emit(`some_scalars_zero_${M}`, pts, dls, sc);
    }
    {
        const { pts, dls } = take(1);
        await emit(`identical_points_${M}`, Array(M).fill(pts[0]), Array(M).fill(dls[0]), randScalars(M));
    }
    {
        // points[2i+1] = -points[2i]; the first 8 pairs get equal scalars (cancel)
        const { pts, dls } = take(M / 2);
        const P = [], D = [], S = [];
        for (let i = 0; i < M / 2; i++) {
            P.push(pts[i], O.neg(pts[i]));
            D.push(dls[i], mod(-dls[i], r));
            const k = rng.below(r);
            S.push(k, i < 8 ? k : rng.below(r));
        }
        await emit(`neg_pairs_${M}`, P, D, S);
    }
    {
        // all pairs cancel -> result is infinity
        const { pts, dls } = take(M / 2);
        const P = [], D = [], S = [];
        for (let i = 0; i < M / 2; i++) {
            const k = rng.below(r);
            P.push(pts[i], O.neg(pts[i])); D.push(dls[i], mod(-dls[i], r)); S.push(k, k);
        }
        await emit(`neg_pairs_cancel_${M}`, P, D, S);
    }
    {
        // some points at infinity (all-zero coordinates in the buffer)
        const { pts, dls } = take(M);
        const P = pts.map((x, i) => (i % 4 === 1 ? null : x));
        const D = dls.map((x, i) => (i % 4 === 1 ? 0n : x));
        const S = randScalars(M);
        await emit(`some_points_infinity_${M}`, P, D, S);
    }
    {
        // infinity first in the buffer, then a few real points (the pattern
        // that trips the library when the zeros are left in)
        const { pts, dls } = take(8);
        const P = [null, null, null, ...pts.slice(0, 5)];
        const D = [0n, 0n, 0n, ...dls.slice(0, 5)];
        await emit("leading_points_infinity_8", P, D, randScalars(8));
    }
    {
        const { pts, dls } = take(M);
        await emit(`all_points_infinity_${M}`, Array(M).fill(null), Array(M).fill(0n), randScalars(M).map((k, i) => (i === 0 ? 0n : k)));
        void pts; void dls;
    }
    {
        // scalars >= r (not reduced), including 2^256-1, r, r+1, 2r
        const { pts, dls } = take(M);
        const S = [];
        for (let i = 0; i < M; i++) {
            const fixed = [TWO256 - 1n, r, r + 1n, 2n * r, r + r - 1n, TWO256 - 2n];
            S.push(i < fixed.length ? fixed[i] : rng.range(r, TWO256));
        }
        await emit(`scalars_ge_r_${M}`, pts, dls, S);
    }
    {
        const { pts, dls } = take(M);
        await emit(`scalars_r_minus_1_${M}`, pts, dls, Array(M).fill(r - 1n));
    }
    {
        const { pts, dls } = take(M);
        await emit(`scalars_max_${M}`, pts, dls, Array(M).fill(TWO256 - 1n));
    }
    {
        const { pts, dls } = take(M);
        await emit(`small_scalars_${M}`, pts, dls, Array.from({ length: M }, (_, i) => BigInt(i % 5)));
    }
    {
        // full-width random 256-bit scalars (about half of them >= r)
        const { pts, dls } = take(M);
        await emit(`random_256bit_scalars_${M}`, pts, dls, Array.from({ length: M }, () => rng.bits(256)));
    }
    return cases;
}

// ---------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------

// version of an installed package (its package.json may not be "exported")
// Pairings: e(aG1, bG2) for random a, b (and e(G1, G2)), with the library's own bilinearity
// checked on each case: e(aG1, bG2) = e(abG1, G2) = e(G1, G2)^(ab). `pairing` is the Gt element
// as Gt.toObject writes it: [c0, c1] of Fq6 = [c0, c1, c2] of Fq2 = [c0, c1], each Fq in LE hex.
function genPairings(c, g1, g2, n, rng) {
    const enc12 = (gt) => c.Gt.toObject(gt).map((f6) => f6.map((f2) => f2.map((x) => leHex(x, g1.n8))));
    const base = c.pairing(c.G1.g, c.G2.g);
    const cases = [{ a: scalarHex(1n), b: scalarHex(1n), p: g1.enc(g1.fromLib(c.G1.g)), q: g2.enc(g2.fromLib(c.G2.g)), pairing: enc12(base) }];
    for (let i = 0; i < n; i++) {
        const a = rng.range(1n, c.r), b = rng.range(1n, c.r);
        const P = g1.libMulGen(a), Q = g2.libMulGen(b);
        const e = c.pairing(g1.toLib(P), g2.toLib(Q));
        const e2 = c.pairing(g1.toLib(g1.libMulGen((a * b) % c.r)), c.G2.g);
        check(c.Gt.eq(e, e2), `${g1.name}: library pairing is bilinear`);
        check(c.Gt.eq(e, c.Gt.exp(base, scalarBytes((a * b) % c.r))), `${g1.name}: e(aG, bH) = e(G, H)^(ab)`);
        cases.push({ a: scalarHex(a), b: scalarHex(b), p: g1.enc(P), q: g2.enc(Q), pairing: enc12(e) });
    }
    return { cases };
}

function pkgVersion(name) {
    let dir = path.dirname(require.resolve(name));
    for (;;) {
        const f = path.join(dir, "package.json");
        if (fs.existsSync(f)) {
            const j = JSON.parse(fs.readFileSync(f, "utf8"));
            if (j.name === name) return j.version;
        }
        const up = path.dirname(dir);
        if (up === dir) return null;
        dir = up;
    }
}

function writeJson(dir, name, obj) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify(obj) + "\n");
    return file;
}

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    const quick = opts.quick;
    const t0 = process.hrtime.bigint();
    const ms = () => Number((process.hrtime.bigint() - t0) / 1000000n);
    const log = (m) => process.stderr.write(`[${(ms() / 1000).toFixed(2)}s] ${m}\n`);
    fs.mkdirSync(opts.out, { recursive: true });

    // Each section gets its own PRNG stream so adding cases to one section
    // does not shift the others.
    const stream = (k) => new SplitMix64(opts.seed * 0x10001n + BigInt(k));

    // singleThread: no worker threads; the results do not depend on it.
    const bn = await ff.buildBn128(true);
    const bls = await ff.buildBls12381(true);
    const GOLDILOCKS_P = (1n << 64n) - (1n << 32n) + 1n;
    const gl = new ff.F1Field(GOLDILOCKS_P);
    rebaseRoots(gl, GOLDILOCKS_W32);
    log("libraries ready");

    const notes = [];
    const quirk = (m) => { if (!notes.includes(m)) notes.push(m); };

    // ---- fields.json
    {
        const rng = stream(1);
        const nR = quick ? 8 : 64, nR2 = quick ? 4 : 32;
        const out = {};
        const specs = [
            ["bn254_fq", new WasmF1(bn.F1), 256],
            ["bn254_fr", new WasmF1(bn.Fr), 256],
            ["bls12_381_fq", new WasmF1(bls.F1), 384],
            ["bls12_381_fr", new WasmF1(bls.Fr), 256],
            ["goldilocks", new JsF1(gl), 64],
        ];
        for (const [name, lib, rbits] of specs) {
            check(lib.n8 * 8 === rbits, `${name}: n8 matches montgomery_r_bits`);
            out[name] = genPrimeField(lib, new OFp(lib.p), rbits, nR, rng);
        }
        out.bn254_fq2 = genFq2(new WasmF2(bn.F2), new OFp2(new OFp(bn.F1.p)), nR2, rng);
        out.bls12_381_fq2 = genFq2(new WasmF2(bls.F2), new OFp2(new OFp(bls.F1.p)), nR2, rng);
        writeJson(opts.out, "fields.json", out);
        log("fields.json");
    }

    // ---- roots.json, fft.json
    const views = [wasmFrView("bn254_fr", bn.Fr), wasmFrView("bls12_381_fr", bls.Fr), jsF1View("goldilocks", gl)];
    {
        const roots = {};
        for (const v of views) roots[v.name] = genRoots(v);
        writeJson(opts.out, "roots.json", roots);
        log("roots.json");

        const rng = stream(2);
        const logSizes = quick ? [0, 1, 2, 3, 4, 5, 8] : [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12];
        const cosetSizes = quick ? [1, 2, 3, 4] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        const fft = {};
        for (const v of views) fft[v.name] = await genFFT(v, logSizes, cosetSizes, rng);
        writeJson(opts.out, "fft.json", fft);
        log("fft.json");
    }

    // ---- curves.json, msm_*.json
    const groups = {};
    for (const [cname, c] of [["bn254", bn], ["bls12_381", bls]]) {
        const Fq = new OFp(c.F1.p), Fq2 = new OFp2(Fq);
        const b1 = c.F1.toObject(c.G1.b), b2 = c.F2.toObject(c.G2.b);
        groups[cname] = {
            g1: new Group(cname, "g1", c.G1, new OCurve(Fq, b1), c.r, false),
            g2: new Group(cname, "g2", c.G2, new OCurve(Fq2, b2), c.r, true),
            q: c.F1.p,
        };
        for (const g of ["g1", "g2"]) {
            groups[cname][g].onNonCanonical = (gname, what) =>
                quirk(`${gname}: ${what} returned a non-canonical infinity (Jacobian X=Y=0, Z!=0: G.isZero false, G.eq unreliable; G.toAffine gives the all-zero affine point)`);
        }
    }
    {
        const rng = stream(3);
        const nR = quick ? 4 : 24;
        const out = {};
        for (const cname of ["bn254", "bls12_381"]) {
            out[cname] = {};
            for (const g of ["g1", "g2"]) out[cname][g] = genGroup(groups[cname][g], nR, rng, groups[cname].q, quirk);
        }
        writeJson(opts.out, "curves.json", out);
        log("curves.json");
    }
    {
        const g1Sizes = quick ? [1, 2, 3, 5, 16, 64, 256] : [1, 2, 3, 5, 16, 64, 255, 256, 1000, 4096];
        const g2Sizes = quick ? [1, 2, 3, 16, 64] : [1, 2, 3, 16, 64, 256];
        for (const [k, cname, file] of [[4, "bn254", "msm_bn254.json"], [5, "bls12_381", "msm_bls12_381.json"]]) {
            const rng = stream(k);
            const out = {};
            for (const [g, sizes] of [["g1", g1Sizes], ["g2", g2Sizes]]) {
                const grp = groups[cname][g];
                const pool = makePool(grp, Math.max(...sizes), rng);
                out[g] = await genMsmGroup(grp, sizes, pool, rng, quirk);
            }
            writeJson(opts.out, file, out);
            log(file);
        }
    }

    {
        const rng = stream(6);
        const out = {};
        for (const [cname, c] of [["bn254", bn], ["bls12_381", bls]]) {
            out[cname] = genPairings(c, groups[cname].g1, groups[cname].g2, quick ? 2 : 6, rng);
        }
        writeJson(opts.out, "pairing.json", out);
        log("pairing.json");
    }

    writeJson(opts.out, "meta.json", {
        generator: "tests/vectors/generate.js",
        seed: opts.seed.toString(),
        mode: quick ? "quick" : "full",
        ffjavascript: pkgVersion("ffjavascript"),
        wasmcurves: pkgVersion("wasmcurves"),
        node: process.version,
        notes,
    });
    log(`done in ${(ms() / 1000).toFixed(2)} s -> ${opts.out}`);
}

main().then(() => process.exit(0), (err) => {
    process.stderr.write((err && err.stack) || String(err));
    process.stderr.write("\n");
    process.exit(1);
});
