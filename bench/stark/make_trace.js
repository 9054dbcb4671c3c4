#!/usr/bin/env node
// Writes a random trace of 2^n_bits rows x n_cols Goldilocks elements (pilcom's exportToFile
// layout: little-endian u64, row-major), every element below p, from a seed, for the
// benchmarks. usage: node make_trace.js N_BITS N_COLS SEED OUT
"use strict";
const fs = require("fs");
const crypto = require("crypto");

const [nBits, nCols, seed, out] = process.argv.slice(2);
const total = (1 << Number(nBits)) * Number(nCols);
const P = (1n << 64n) - (1n << 32n) + 1n;
const fd = fs.openSync(out, "w");
const chunk = 1 << 20;
let counter = 0;
for (let done = 0; done < total; done += chunk) {
  const n = Math.min(chunk, total - done);
  // SHA-256 in counter mode: reproducible from the seed, and fast enough for gigabytes.
  const bytes = Buffer.alloc(n * 8);
  for (let off = 0; off < bytes.length; off += 32) {
    crypto.createHash("sha256").update(`${seed}/${counter++}`).digest().copy(bytes, off);
  }
  const words = new BigUint64Array(bytes.buffer, bytes.byteOffset, n);
  for (let i = 0; i < n; ++i) if (words[i] >= P) words[i] -= P;
  fs.writeSync(fd, bytes);
}
fs.closeSync(fd);
