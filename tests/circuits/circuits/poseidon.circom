pragma circom 2.0.0;

// Case `poseidon_bn128`: a realistic circuit from circomlib 2.0.5 — the Poseidon
// hash of two private field elements, with the hash as the only public signal.
// generate.sh compiles it with --O2, which substitutes the linear (MDS mixing)
// constraints into the non-linear ones: 240 constraints whose A/B/C rows are
// linear combinations of many terms, domain 2^8 -- dense rows, the largest domain
// of the set and real-looking MSMs, unlike the toy cases. (With circom's default
// --O1 it would be 243 non-linear + 274 linear constraints, domain 2^10.)
// poseidon.circom is found through circom's library path (-l node_modules).
include "circomlib/circuits/poseidon.circom";

template PoseidonHash2() {
    signal input a;
    signal input b;
    signal output hash;

    component h = Poseidon(2);
    h.inputs[0] <== a;
    h.inputs[1] <== b;
    hash <== h.out;
}

component main = PoseidonHash2();
