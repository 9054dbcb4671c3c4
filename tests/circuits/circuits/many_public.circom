pragma circom 2.0.0;

// Case `many_public_bn128`: many public signals compared with constraints.
// 40 public inputs `in` plus 2 outputs give nPublic = 42 (in the public signal
// list the outputs come first, then the public inputs in declaration order),
// against only 24 constraints (23 multiplications, 1 linear). snarkjs's Groth16
// adds one row per public signal plus one, so the domain is set by
// nConstraints + nPublic + 1 = 67 -> 128, not by nConstraints (24 -> 32): a prover
// that sizes the domain from the constraints alone, or mishandles the IC /
// public-input rows of the zkey, fails here. Some constraints mix public inputs
// with the private witness `w`:
//   out[0] = sum_{k<20} in[2k] * in[2k+1]  +  w * w   (the sum is a linear constraint)
//   out[1] = (in[0] + in[39]) * w * in[20]
// The input file sets in[39] = 0 (a zero scalar in the IC MSM), in[7] = r - 2
// and in[20] = 2^200 + 7.
template ManyPublic(N) {
    signal input in[N];     // public (see `component main` below)
    signal input w;         // private
    signal output out[2];

    signal prod[N \ 2];
    var sum = 0;
    for (var k = 0; k < N \ 2; k++) {
        prod[k] <== in[2 * k] * in[2 * k + 1];
        sum += prod[k];
    }
    signal ww;
    ww <== w * w;
    out[0] <== sum + ww;

    signal t;
    t <== (in[0] + in[N - 1]) * w;
    out[1] <== t * in[N \ 2];
}

component main {public [in]} = ManyPublic(40);
