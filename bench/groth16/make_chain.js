// Writes the benchmark circuit of bench/groth16/chain.circom.in directly as circom would compile
// it (--O0), with its witness: circom2 (wasm) needs minutes past 2^18 constraints, this needs
// seconds. Wires: 0 = 1, 1 = out, 2 = x, 3 = y, 4 + i = t[i];
//   t[0] = x * y,   t[i] = t[i-1] * (t[i-1] + i),   out = t[N-1] * 1.
// `snarkjs wtns check` checks the pair independently (bench/groth16/scaling.sh runs it).
// Both files are streamed through a small buffer, so 2^24 constraints (a 2.7 GB r1cs) fit.
//
// Usage: node make_chain.js N OUT.r1cs OUT.wtns [bn128|bls12381]
"use strict";
const fs = require("fs");

const PRIMES = {
  bn128: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
  bls12381: 52435875175126190479447740508185965837690552500527637822603658699938581184513n,
};
const [n, r1csPath, wtnsPath, curve = "bn128"] = process.argv.slice(2);
const N = Number(n);
const p = PRIMES[curve];
if (!(N >= 1) || !r1csPath || !wtnsPath || p === undefined) {
  console.error("usage: node make_chain.js N OUT.r1cs OUT.wtns [bn128|bls12381]");
  process.exit(2);
}
const nWires = 4 + N;

// Little-endian writes into a file through a 4 MiB buffer.
class Out {
  constructor(path) { this.fd = fs.openSync(path, "w"); this.buf = Buffer.alloc(4 << 20); this.at = 0; }
  room(n) { if (this.at + n > this.buf.length) this.flush(); }
  flush() { fs.writeSync(this.fd, this.buf, 0, this.at); this.at = 0; }
  u32(v) { this.room(4); this.buf.writeUInt32LE(v, this.at); this.at += 4; }
  u64(v) { this.room(8); this.buf.writeBigUInt64LE(BigInt(v), this.at); this.at += 8; }
  fe(v) {
    this.room(32);
    for (let i = 0; i < 32; i++) { this.buf[this.at++] = Number(v & 0xffn); v >>= 8n; }
  }
  bytes(s) { this.room(s.length); this.buf.write(s, this.at, "latin1"); this.at += s.length; }
  close() { this.flush(); fs.closeSync(this.fd); }
}
function lcSize(terms) { return 4 + 36 * terms; }
function lc(out, terms) {
  out.u32(terms.length);
  for (const [w, v] of terms) { out.u32(w); out.fe(v); }
}

const r1cs = new Out(r1csPath);
r1cs.bytes("r1cs"); r1cs.u32(1); r1cs.u32(3);
r1cs.u32(1); r1cs.u64(4 + 32 + 4 * 4 + 8 + 4);
r1cs.u32(32); r1cs.fe(p); r1cs.u32(nWires); r1cs.u32(1); r1cs.u32(0); r1cs.u32(2);
r1cs.u64(nWires); r1cs.u32(N + 1);
const first = 3 * lcSize(1), middle = lcSize(1) + lcSize(2) + lcSize(1);
r1cs.u32(2); r1cs.u64(first + (N - 1) * middle + first);
lc(r1cs, [[2, 1n]]); lc(r1cs, [[3, 1n]]); lc(r1cs, [[4, 1n]]);
for (let i = 1; i < N; i++) {
  lc(r1cs, [[3 + i, 1n]]); lc(r1cs, [[0, BigInt(i)], [3 + i, 1n]]); lc(r1cs, [[4 + i, 1n]]);
}
lc(r1cs, [[3 + N, 1n]]); lc(r1cs, [[0, 1n]]); lc(r1cs, [[1, 1n]]);
r1cs.u32(3); r1cs.u64(8 * nWires);
for (let w = 0; w < nWires; w++) r1cs.u64(w);
r1cs.close();

// out = t[N-1] comes second but is known last: compute the chain first.
let t = 15n;
for (let i = 1; i < N; i++) t = (t * (t + BigInt(i))) % p;
const wtns = new Out(wtnsPath);
wtns.bytes("wtns"); wtns.u32(2); wtns.u32(2);
wtns.u32(1); wtns.u64(4 + 32 + 4); wtns.u32(32); wtns.fe(p); wtns.u32(nWires);
wtns.u32(2); wtns.u64(32 * nWires);
for (const v of [1n, t, 3n, 5n]) wtns.fe(v);
t = 15n;
wtns.fe(t);
for (let i = 1; i < N; i++) { t = (t * (t + BigInt(i))) % p; wtns.fe(t); }
wtns.close();
