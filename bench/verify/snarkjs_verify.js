// Times snarkjs's own groth16.verify in one node process (no start-up, curve built once):
// node snarkjs_verify.js SNARKJS_DIR CASE_DIR [ITERATIONS]; prints "<case> <ms per verify>".
const path = require("path");
const [snarkjsDir, caseDir, iterations = "50"] = process.argv.slice(2);
const snarkjs = require(path.join(snarkjsDir, "build", "main.cjs"));
const fs = require("fs");
const read = (f) => JSON.parse(fs.readFileSync(path.join(caseDir, f), "utf8"));
(async () => {
  const vk = read("vkey.json"), proof = read("snarkjs_proof.json"), pub = read("snarkjs_public.json");
  if (!(await snarkjs.groth16.verify(vk, pub, proof))) throw new Error("snarkjs rejected the proof");
  const n = Number(iterations);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await snarkjs.groth16.verify(vk, pub, proof);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6 / n;
  console.log(`${path.basename(caseDir)} ${ms.toFixed(3)}`);
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
