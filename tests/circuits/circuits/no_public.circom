pragma circom 2.0.0;

// Case `no_public_bn128`: nPublic = 0. No output signals and no public inputs,
// only private inputs and `===` constraints against constants:
//   x * y       == 391   (17 * 23)
//   x^2 * y     == 6647  (17^2 * 23)
//   (x + y) * y == 920   ((17 + 23) * 23)
// The verification key then has a single IC point (IC[0]) and public.json is
// `[]`. Checks the edge case where the public-input part of the MSMs and of the
// domain (nConstraints + nPublic + 1) is empty.
template NoPublic() {
    signal input x;
    signal input y;

    x * y === 391;
    signal xx;
    xx <== x * x;
    xx * y === 6647;
    (x + y) * y === 920;
}

component main = NoPublic();
