#!/usr/bin/env bash
# Writes the Groth16 circuit fixtures into OUT_DIR (the CTest fixture `circuits` calls this).
# Compiles the circom circuits with the pinned circom2 (wasm circom), makes one small powers of
# tau per curve and one proving key per case with the pinned snarkjs, computes the witnesses and
# proves and verifies each case with snarkjs, so a broken fixture fails here, loudly.
# Installs the pinned packages with `npm ci` when needed, and skips the generation when OUT_DIR
# already holds fixtures newer than this script, the circuits, the inputs and the lock file.
#
# Everything but the snarkjs proofs is deterministic: the ceremony contributions are snarkjs
# *beacons* with fixed hashes (`contribute -e=...` mixes in 64 random bytes, so it is not).
set -euo pipefail
out=${1:?usage: generate.sh OUT_DIR}
case $out in /*) ;; *) out=$PWD/$out ;; esac
out=${out%/}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
if [ ! -f node_modules/snarkjs/package.json ] || [ ! -f node_modules/circom2/package.json ] ||
   [ ! -f node_modules/circomlib/package.json ] ||
   [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --silent --no-audit --no-fund
fi
if [ -f "$out/meta.json" ]; then
  fresh=1
  for f in generate.sh package-lock.json circuits/*.circom inputs/*.json; do
    [ "$out/meta.json" -nt "$f" ] || fresh=0
  done
  if [ "$fresh" = 1 ]; then
    echo "circuits in $out are up to date"
    exit 0
  fi
fi

snarkjs=(node "$here/node_modules/snarkjs/build/cli.cjs")
circom=(node "$here/node_modules/circom2/cli.js")

# name, circuit (circuits/CIRCUIT.circom, inputs/CIRCUIT.json), curve (circom --prime and snarkjs
# name), circom optimisation. Poseidon uses --O2: with circom's default --O1 it keeps 274 linear
# constraints (517 in all, domain 2^10), and preparing a 2^10 BN254 ptau takes ~19 s here; with
# --O2 it has 240 constraints, domain 2^8 (~4 s). many_public keeps a linear constraint (O1).
cases=(
  "mult_bn128        multiplier_chain bn128    --O1"
  "poseidon_bn128    poseidon         bn128    --O2"
  "many_public_bn128 many_public      bn128    --O1"
  "no_public_bn128   no_public        bn128    --O1"
  "mult_bls12381     multiplier_chain bls12381 --O1"
)
# Fixed beacon hashes (any hex string works) and 2^10 iterations, the smallest snarkjs accepts.
ptau_beacon=5eed0000000000000000000000000000000000000000000000000000000000a1
zkey_beacon=5eed0000000000000000000000000000000000000000000000000000000000b2
beacon_iter=10

tmp=$out.tmp
build=$tmp/_build
rm -rf "$tmp"
mkdir -p "$build"

# run LOG CMD...: runs CMD quietly; on failure prints its output and the command, and fails.
run() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "generate.sh: failed: $*" >&2
    return 1
  fi
}
# wait_all PID...: waits for every PID, fails if any failed.
wait_all() {
  local st=0 p
  for p in "$@"; do wait "$p" || st=1; done
  return $st
}

# 1. Compile every case (in parallel; circom2 is single-threaded).
pids=()
for c in "${cases[@]}"; do
  read -r name circuit curve opt <<<"$c"
  mkdir -p "$build/$name" "$tmp/$name"
  run "$build/$name/circom.log" "${circom[@]}" "circuits/$circuit.circom" --r1cs --wasm "$opt" \
    --prime "$curve" -l node_modules -o "$build/$name" &
  pids+=($!)
done
wait_all "${pids[@]}"

# 2. Read the r1cs headers: nConstraints, nPublic, the domain snarkjs will use
#    (2^ceil(log2(nConstraints + nPublic + 1))) and the smallest ptau power per curve.
for c in "${cases[@]}"; do
  read -r name circuit curve opt <<<"$c"
  mv "$build/$name/$circuit.r1cs" "$tmp/$name/circuit.r1cs"
  mv "$build/$name/${circuit}_js/$circuit.wasm" "$tmp/$name/circuit.wasm"
  cp "inputs/$circuit.json" "$tmp/$name/input.json"
  echo "$name $curve $tmp/$name/circuit.r1cs"
done | node -e '
const fs = require("fs");
const lines = fs.readFileSync(0, "utf8").trim().split("\n");
const cases = [], power = {};
for (const line of lines) {
  const [name, curve, file] = line.split(" ");
  const b = fs.readFileSync(file);
  if (b.toString("latin1", 0, 4) !== "r1cs") throw new Error(file + ": not an r1cs file");
  let pos = 12, h = null;
  for (let i = 0, n = b.readUInt32LE(8); i < n; i++) {
    const type = b.readUInt32LE(pos), size = Number(b.readBigUInt64LE(pos + 4));
    if (type === 1) h = pos + 12;
    pos += 12 + size;
  }
  const n8 = b.readUInt32LE(h);
  const prime = BigInt("0x" + Buffer.from(b.subarray(h + 4, h + 4 + n8)).reverse().toString("hex"));
  let p = h + 4 + n8;
  const nVars = b.readUInt32LE(p), nOutputs = b.readUInt32LE(p + 4),
        nPubInputs = b.readUInt32LE(p + 8), nPrvInputs = b.readUInt32LE(p + 12),
        nConstraints = b.readUInt32LE(p + 24);
  const nPublic = nOutputs + nPubInputs;
  let log2Domain = 0;
  while (2 ** log2Domain < nConstraints + nPublic + 1) log2Domain++;
  power[curve] = Math.max(power[curve] || 0, log2Domain);
  cases.push({ name, curve, prime: prime.toString(), nVars, nOutputs, nPubInputs, nPrvInputs,
               nPublic, nConstraints, log2Domain, domainSize: 2 ** log2Domain });
}
fs.writeFileSync(process.argv[1], JSON.stringify({ cases, ptauPower: power }, null, 1) + "\n");
for (const c in power) console.log(c, power[c]);
' "$build/r1cs.json" >"$build/powers.txt"

# 3. One small powers of tau per curve: new, one beacon contribution, prepare phase 2.
mkdir -p "$tmp/ptau"
make_ptau() {
  local curve=$1 power=$2 d=$build/ptau_$1
  mkdir -p "$d"
  run "$d/log" "${snarkjs[@]}" powersoftau new "$curve" "$power" "$d/0.ptau" &&
  run "$d/log" "${snarkjs[@]}" powersoftau beacon "$d/0.ptau" "$d/1.ptau" "$ptau_beacon" \
    "$beacon_iter" -n="provd test ptau" &&
  run "$d/log" "${snarkjs[@]}" powersoftau prepare phase2 "$d/1.ptau" "$tmp/ptau/$curve.ptau"
}
pids=()
while read -r curve power; do
  make_ptau "$curve" "$power" &
  pids+=($!)
done <"$build/powers.txt"
wait_all "${pids[@]}"

# 4. Per case: groth16 setup, one beacon contribution (so delta is not the generator), the
#    verification key, the witness (checked against the r1cs), a snarkjs proof, verified.
build_case() {
  local name=$1 curve=$2 d=$tmp/$1 log=$build/$1/snarkjs.log
  (
    cd "$d"
    run "$log" "${snarkjs[@]}" groth16 setup circuit.r1cs "$tmp/ptau/$curve.ptau" "$build/$name/0.zkey" &&
    run "$log" "${snarkjs[@]}" zkey beacon "$build/$name/0.zkey" circuit.zkey "$zkey_beacon" \
      "$beacon_iter" -n="provd test zkey" &&
    run "$log" "${snarkjs[@]}" zkey export verificationkey circuit.zkey vkey.json &&
    run "$log" "${snarkjs[@]}" wtns calculate circuit.wasm input.json witness.wtns &&
    run "$log" "${snarkjs[@]}" wtns check circuit.r1cs witness.wtns &&
    run "$log" "${snarkjs[@]}" groth16 prove circuit.zkey witness.wtns snarkjs_proof.json \
      snarkjs_public.json &&
    run "$log" "${snarkjs[@]}" groth16 verify vkey.json snarkjs_public.json snarkjs_proof.json &&
    grep -q "OK!" "$log"
  ) || { echo "generate.sh: case $name failed" >&2; return 1; }
}
pids=()
for c in "${cases[@]}"; do
  read -r name circuit curve opt <<<"$c"
  build_case "$name" "$curve" &
  pids+=($!)
done
wait_all "${pids[@]}"

# 5. meta.json: the cases with their shapes, the ptau powers, the tool versions. One line per case.
# shellcheck disable=SC2016  # JavaScript template literals, not shell expansions
node -e '
const fs = require("fs"), path = require("path");
const [here, dir] = process.argv.slice(1);
const info = JSON.parse(fs.readFileSync(path.join(dir, "_build/r1cs.json"), "utf8"));
const ver = (p) => require(path.join(here, "node_modules", p, "package.json")).version;
const meta = {
  generator: "tests/circuits/generate.sh",
  versions: { snarkjs: ver("snarkjs"), circom2: ver("circom2"), circomlib: ver("circomlib"),
              node: process.version },
  ptauPower: info.ptauPower,
  files: ["circuit.r1cs", "circuit.wasm", "circuit.zkey", "witness.wtns", "vkey.json",
          "snarkjs_proof.json", "snarkjs_public.json", "input.json"],
  cases: info.cases.map((c) => {
    const read = (f) => JSON.parse(fs.readFileSync(path.join(dir, c.name, f), "utf8"));
    const vkey = read("vkey.json"), pub = read("snarkjs_public.json");
    // The zkey header (section 2: n8q q n8r r nVars nPublic domainSize ...) must agree.
    const z = fs.readFileSync(path.join(dir, c.name, "circuit.zkey"));
    if (z.toString("latin1", 0, 4) !== "zkey") throw new Error(c.name + ": not a zkey file");
    let pos = 12, h = null;
    for (let i = 0, n = z.readUInt32LE(8); i < n; i++) {
      if (z.readUInt32LE(pos) === 2) h = pos + 12;
      pos += 12 + Number(z.readBigUInt64LE(pos + 4));
    }
    const n8q = z.readUInt32LE(h), n8r = z.readUInt32LE(h + 4 + n8q), o = h + 8 + n8q + n8r;
    const zk = { nVars: z.readUInt32LE(o), nPublic: z.readUInt32LE(o + 4),
                 domainSize: z.readUInt32LE(o + 8) };
    for (const k in zk)
      if (zk[k] !== c[k]) throw new Error(`${c.name}: zkey ${k} ${zk[k]}, expected ${c[k]}`);
    if (vkey.nPublic !== c.nPublic) throw new Error(c.name + ": vkey nPublic " + vkey.nPublic);
    if (pub.length !== c.nPublic) throw new Error(c.name + ": public.json length " + pub.length);
    const { prime, ...rest } = c;
    if (vkey.curve !== c.curve) throw new Error(c.name + ": vkey curve " + vkey.curve);
    return { ...rest, prime };
  }),
};
for (const c of meta.cases)
  console.log(`circuits: ${c.name}: ${c.curve} nConstraints=${c.nConstraints} ` +
              `nPublic=${c.nPublic} domain=2^${c.log2Domain} ok`);
fs.writeFileSync(path.join(dir, "meta.json"), JSON.stringify(meta, null, 1) + "\n");
' "$here" "$tmp"
rm -rf "$build" "$out"
mv "$tmp" "$out"
