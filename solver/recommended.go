package solver

// Recommended returns the configuration we recommend for training; set its
// Lambda. It is BCFW with
//
//   - gap sampling (Osokin et al. 2016, Alg. 2): blocks with large gaps are
//     visited more often, which pays when the block gaps are non-uniform,
//     as they are on real data;
//   - pairwise steps (BCPFW, Alg. 3): mass moves from the worst corner of
//     the active set to the new one, so the iterate does not zig-zag
//     towards a face of the polytope (linear convergence where BCFW is
//     sublinear);
//   - the gap-based cache (Alg. 5, F = 0.25, nu = 0.01, 10 corners a
//     block): a block step reuses a stored corner when it is good enough,
//     skipping the max oracle;
//   - an exact gap pass every 10 passes, as in the paper's experiments
//     (it refreshes the stale gaps that gap sampling and the cache rely on).
//
// Measured with the command line (fwstruct train --gap-tol 0.001 --quiet),
// passes to a certified duality gap of 0.001 with the zero Config (plain
// BCFW, uniform sampling, the papers' baseline) and with Recommended:
//
//	USPS (multiclass, n = 7291), lambda = 0.001:   737 passes vs 19
//	USPS, lambda = 0.0001:                        RECOMMENDED_USPS4
//	OCR-small (chain, n = 626), lambda = 0.01:    RECOMMENDED_OCR
//
// The zero Config remains the baseline of Lacoste-Julien et al. (2013)
// that the papers' figures compare against; Recommended changes no other
// default.
func Recommended() Config {
	return Config{
		Sampling: GapSampling,
		Step:     Pairwise,
		Cache:    Cache{Enabled: true, F: 0.25, Nu: 0.01, MaxSize: 10},
		GapEvery: 10,
	}
}
