// The peer measurement for bench/compare.sh: ffjavascript (snarkjs's arithmetic, wasm, using
// all cores through its worker threads) timing G1 multiExpAffine and Fr fft on the sizes our
// Google Benchmarks use. Prints one JSON object per line: {"op", "curve", "log_n", "ms"}.
//
// Usage: node bench/ffjavascript_bench.js [--msm 12,16,18,20] [--fft 16,18,20,22]
// (needs `npm ci` in tests/vectors, which pins ffjavascript).
"use strict";
const path = require("path");
const ff = require(path.join(__dirname, "..", "tests", "vectors", "node_modules", "ffjavascript"));

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return (i >= 0 ? process.argv[i + 1] : fallback).split(",").filter(Boolean).map(Number);
}

// Deterministic pseudo-random bytes (xorshift64*), so both sides time comparable inputs.
function randomBytes(n, seed) {
  const out = new Uint8Array(n);
  let x = BigInt(seed) | 1n;
  const mask = (1n << 64n) - 1n;
  for (let i = 0; i < n; i += 8) {
    x ^= x >> 12n; x ^= (x << 25n) & mask; x ^= x >> 27n;
    let v = (x * 0x2545f4914f6cdd1dn) & mask;
    for (let k = 0; k < 8 && i + k < n; ++k) { out[i + k] = Number(v & 0xffn); v >>= 8n; }
  }
  return out;
}

// The faster of two runs: the first one also pays for waking ffjavascript's worker threads.
async function bestOfTwo(run) {
  let best = Infinity;
  for (let i = 0; i < 2; ++i) {
    const t0 = process.hrtime.bigint();
    await run();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best;
}

async function timeMsm(curve, name, logN) {
  const n = 1 << logN;
  const G1 = curve.G1;
  const sG = G1.F.n8 * 2;
  // Points: multiples of the generator, built by doubling/adding (cheap), as affine LEM.
  const points = new ff.BigBuffer(n * sG);
  let p = G1.g;
  const step = G1.timesScalar(G1.g, 7);
  for (let i = 0; i < n; ++i) {
    G1.toRprLEM(points, i * sG, G1.toAffine(p));
    p = G1.add(p, step);
  }
  const scalars = new ff.BigBuffer(n * curve.Fr.n8);
  const bytes = randomBytes(n * curve.Fr.n8, 1);
  for (let i = 0; i < n; ++i) bytes[i * curve.Fr.n8 + curve.Fr.n8 - 1] &= 0x1f;  // below r
  scalars.set(bytes, 0);
  const ms = await bestOfTwo(() => G1.multiExpAffine(points, scalars, false, ""));
  console.log(JSON.stringify({ op: "msm_g1", curve: name, log_n: logN, ms }));
}

async function timeFft(curve, name, logN) {
  const n = 1 << logN;
  const Fr = curve.Fr;
  const data = new ff.BigBuffer(n * Fr.n8);
  const bytes = randomBytes(n * Fr.n8, 2);
  for (let i = 0; i < n; ++i) bytes[i * Fr.n8 + Fr.n8 - 1] &= 0x1f;
  data.set(bytes, 0);
  const ms = await bestOfTwo(() => Fr.fft(data));
  console.log(JSON.stringify({ op: "fft", curve: name, log_n: logN, ms }));
}

async function main() {
  const msm = arg("--msm", "12,16,18,20");
  const fft = arg("--fft", "16,18,20,22");
  for (const [name, build] of [["bn254", ff.buildBn128], ["bls12_381", ff.buildBls12381]]) {
    const curve = await build();
    for (const logN of msm) await timeMsm(curve, name, logN);
    for (const logN of fft) await timeFft(curve, name, logN);
    await curve.terminate();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
