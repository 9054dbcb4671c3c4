#!/usr/bin/env node
// pil-stark as an oracle for provd's trace commitments. For every job of a manifest it does
// what pil-stark's buildConstTree does with a constant-polynomial file: `interpolate` (inverse
// NTT over 2^n, rows times shift^i, zero extension, NTT over 2^(n+b)) and the `merkelize` of
// MerkleHashGL or of MerkleHashBN128 (with the job's arity), then writes the verification key
// as pil-stark writes it (constRoot) and, when asked, the tree with pil-stark's own
// `writeToFile`.
//
// It also runs pil-stark's Poseidon permutation (Goldilocks) and circomlibjs's Poseidon (BN254,
// what MerkleHashBN128 uses) on given inputs, so the hashes are checked on their own and not
// only through the roots.
//
// usage: node oracle.js MANIFEST.json
//   MANIFEST: {"commits": [{"columns": F, "n_bits": n, "n_cols": C, "blowup_bits": b,
//                           "hash": "gl" | "bn128" (default "gl"), "arity": A (bn128),
//                           "root_out": F, "tree_out": F (optional)}, ...],
//              "permutations": {"in": F, "out": F} (optional),
//              "bn128_hashes": {"in": F, "out": F} (optional)}
//   permutations: "in" holds [[12 decimal strings], ...]; "out" gets the permuted states alike.
//   bn128_hashes: "in" holds [[initial state, input 1, ..., input k], ...] (decimal strings,
//   1 <= k <= 16); "out" gets circomlibjs's poseidon(inputs, initial state) of each.
// One process runs every job: pil-stark's worker pools cost a second to start per process.
"use strict";
const fs = require("fs");
const JSONbig = require("json-bigint")({ useNativeBigInt: true, alwaysParseAsBig: true });
const { BigBuffer } = require("pilcom");
const { interpolate } = require("pil-stark/src/helpers/fft/fft_p");
const buildMerkleHashGL = require("pil-stark/src/helpers/hash/merklehash/merklehash_p.js");
const buildMerkleHashBN128 = require("pil-stark/src/helpers/hash/merklehash/merklehash_bn128_p.js");
const buildPoseidon = require("pil-stark/src/helpers/hash/poseidon/poseidon.js");
const circomlibjs = require("circomlibjs");

// One MerkleHash per hash and arity, built once.
const trees = new Map();
async function merkleHashFor(job) {
  const key = job.hash === "bn128" ? `bn128/${job.arity}` : "gl";
  if (!trees.has(key)) {
    trees.set(key, job.hash === "bn128" ? await buildMerkleHashBN128(job.arity) : await buildMerkleHashGL(false));
  }
  return trees.get(key);
}

async function hashBn128(job) {
  const poseidon = await circomlibjs.buildPoseidon();
  const inputs = JSON.parse(fs.readFileSync(job.in, "utf8"));
  const out = inputs.map((words) => {
    const [init, ...rest] = words.map((x) => BigInt(x));
    return poseidon.F.toString(poseidon(rest, init));
  });
  fs.writeFileSync(job.out, JSON.stringify(out), "utf8");
}

async function commit(job) {
  const MH = await merkleHashFor(job);
  const { n_bits: nBits, n_cols: nCols, blowup_bits: blowupBits } = job;
  const n = 1 << nBits;
  const nExt = 1 << (nBits + blowupBits);
  const bytes = fs.readFileSync(job.columns);
  if (bytes.length !== n * nCols * 8) {
    throw new Error(`${job.columns}: ${bytes.length} bytes, expected ${n * nCols * 8}`);
  }
  const columns = new BigUint64Array(bytes.buffer, bytes.byteOffset, n * nCols);
  const extended = new BigBuffer(nExt * nCols);
  await interpolate(columns, nCols, nBits, extended, nBits + blowupBits);
  const tree = await MH.merkelize(extended, nCols, nExt);
  const verKey = { constRoot: MH.root(tree) };
  fs.writeFileSync(job.root_out, JSONbig.stringify(verKey, null, 1), "utf8");
  if (job.tree_out) await MH.writeToFile(tree, job.tree_out);
}

function permute(job) {
  const poseidon = buildPoseidon();
  const states = JSON.parse(fs.readFileSync(job.in, "utf8"));
  const out = states.map((state) => {
    const words = state.map((x) => BigInt(x));
    return poseidon(words.slice(0, 8), words.slice(8), 12).map((x) => poseidon.F.toString(x));
  });
  fs.writeFileSync(job.out, JSON.stringify(out), "utf8");
}

async function main() {
  const manifest = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  // pil-stark logs every block it hands to a worker; keep stdout for our own line.
  const log = console.log;
  console.log = () => {};
  const started = Date.now();
  for (const job of manifest.commits) await commit(job);
  if (manifest.permutations) permute(manifest.permutations);
  if (manifest.bn128_hashes) await hashBn128(manifest.bn128_hashes);
  log(`pil-stark committed ${manifest.commits.length} trace(s) in ${(Date.now() - started) / 1000} s`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err.stack || String(err));
    process.exit(1);
  },
);
