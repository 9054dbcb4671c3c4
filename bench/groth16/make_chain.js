// Writes the benchmark circuit of bench/groth16/chain.circom.in directly as circom would compile
// it (--O0), with its witness: circom2 (wasm) needs minutes past 2^18 constraints, this needs
// seconds. Wires: 0 = 1, 1 = out, 2 = x, 3 = y, 4 + i = t[i];
//   t[0] = x * y,   t[i] = t[i-1] * (t[i-1] + i),   out = t[N-1] * 1.
// `snarkjs wtns check` checks the pair independently (bench/groth16/scaling.sh runs it).
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

function u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; }
function u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; }
function fe(v) {
  const b = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) { b[i] = Number(v & 0xffn); v >>= 8n; }
  return b;
}
// A linear combination: [[wire, value], ...].
function lc(terms) {
  return Buffer.concat([u32(terms.length), ...terms.map(([w, v]) => Buffer.concat([u32(w), fe(v)]))]);
}
function container(magic, version, sections) {
  const parts = [Buffer.from(magic), u32(version), u32(sections.length)];
  for (const [id, body] of sections) parts.push(u32(id), u64(body.length), body);
  return Buffer.concat(parts);
}
// Sections can be large: build them from chunks.
function sectionOf(chunks) { return Buffer.concat(chunks); }

const constraints = [lc([[2, 1n]]), lc([[3, 1n]]), lc([[4, 1n]])];
for (let i = 1; i < N; i++) {
  constraints.push(lc([[3 + i, 1n]]), lc([[0, BigInt(i)], [3 + i, 1n]]), lc([[4 + i, 1n]]));
}
constraints.push(lc([[3 + N, 1n]]), lc([[0, 1n]]), lc([[1, 1n]]));
const header = Buffer.concat([u32(32), fe(p), u32(nWires), u32(1), u32(0), u32(2), u64(nWires),
                              u32(N + 1)]);
const labels = [];
for (let w = 0; w < nWires; w++) labels.push(u64(w));
fs.writeFileSync(r1csPath, container("r1cs", 1, [[1, header], [2, sectionOf(constraints)],
                                                 [3, sectionOf(labels)]]));

const values = [1n, 0n, 3n, 5n];
let t = 15n;
values.push(t);
for (let i = 1; i < N; i++) {
  t = (t * (t + BigInt(i))) % p;
  values.push(t);
}
values[1] = t;
fs.writeFileSync(wtnsPath, container("wtns", 2, [[1, Buffer.concat([u32(32), fe(p), u32(nWires)])],
                                                 [2, sectionOf(values.map(fe))]]));
