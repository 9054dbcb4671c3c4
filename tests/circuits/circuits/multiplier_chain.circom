pragma circom 2.0.0;

// Case `mult_bn128` and `mult_bls12381`: the smallest "real" Groth16 circuit.
// A chain of N multiplications of N+1 private inputs,
//   acc[0] = in[0],  acc[i+1] = acc[i] * in[i+1],  out = acc[N],
// so the r1cs has exactly N multiplication constraints and ONE public signal (the
// output). The same source is compiled for BN254 (--prime bn128) and BLS12-381
// (--prime bls12381), which makes it the cross-curve check of the prover: same
// shape, different field, different zkey/proof encodings (32- vs 48-byte Fq).
template MultiplierChain(N) {
    signal input in[N + 1];
    signal output out;

    signal acc[N + 1];
    acc[0] <== in[0];
    for (var i = 0; i < N; i++) {
        acc[i + 1] <== acc[i] * in[i + 1];
    }
    out <== acc[N];
}

component main = MultiplierChain(20);
