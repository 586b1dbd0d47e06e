package run

import "fmt"

// The settings below are shared by the method types of the solver
// families: each method holds the ones that apply to it, and its New
// refuses the values it does not implement with a one-line error that says
// what to use instead.

// Algorithm selects the optimizer of a family that has several.
type Algorithm int

const (
	// BCFW is block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013,
	// Alg. 4) and its variants of Osokin et al. (2016): gap sampling,
	// pairwise and away steps, caching, box constraints.
	BCFW Algorithm = iota
	// FW is batch Frank-Wolfe (Lacoste-Julien et al. 2013, Alg. 2; with box
	// constraints Osokin et al. 2016, Alg. 8).
	FW
	// SSG is the stochastic subgradient method with the Pegasos step size
	// 1/(lambda (k+1)) (Lacoste-Julien et al. 2013, Sec. 6).
	SSG
	// CuttingPlane is the 1-slack cutting-plane method (Joachims et al.
	// 2009) as fully corrective Frank-Wolfe (Lacoste-Julien et al. 2013,
	// Sec. 4): a batch method like FW whose step re-optimizes the dual over
	// every vertex (aggregated plane) seen so far.
	CuttingPlane
	// OnlineEG is online exponentiated gradient (Collins et al. 2008) on
	// the chain model: each example's dual is a Gibbs distribution over
	// its labelings, updated multiplicatively from marginals computed by
	// forward-backward, with the per-example adaptive step size of
	// Lacoste-Julien et al. (2013, App. F).
	OnlineEG
)

// Sampling selects how a block-coordinate method picks its next block.
type Sampling int

const (
	// Uniform draws a block uniformly at random (with replacement).
	Uniform Sampling = iota
	// Permutation visits the blocks in a fresh random order every pass.
	Permutation
	// GapSampling draws block i with probability proportional to its last
	// computed block gap; blocks never visited come first (Osokin et al.
	// 2016, Alg. 2).
	GapSampling
	// GapSamplingInOrder is gap sampling whose first draws, of the blocks
	// without a gap estimate yet, are in index order instead of uniformly
	// at random, so that the first pass visits the blocks in the order of
	// the data: what the reference code of Osokin et al. (2016), gapBCFW,
	// does (its weighted draw over infinite weights picks the first
	// infinite one). Alg. 2 leaves the order among those blocks open.
	GapSamplingInOrder
	// ExamplePermutation is for the soft solver (package solver/soft),
	// whose blocks are the (example, node) pairs of Meshi et al. (2015):
	// every pass visits every block once, the examples in a fresh random
	// order and each example's blocks one after another in a fresh random
	// order, so that a step finds its example's state in the cache. For
	// whole examples it would be Permutation, which the example-level
	// solvers ask for instead.
	ExamplePermutation
)

// StepSize selects how the length of a Frank-Wolfe step is chosen.
type StepSize int

const (
	// LineSearch uses the exact line search of the quadratic dual.
	LineSearch StepSize = iota
	// Predefined uses gamma = 2n/(k+2n) for BCFW and 2/(k+2) for FW.
	Predefined
)

func (a Algorithm) String() string {
	switch a {
	case BCFW:
		return "bcfw"
	case FW:
		return "fw"
	case SSG:
		return "ssg"
	case CuttingPlane:
		return "cp"
	case OnlineEG:
		return "online-eg"
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

func (s Sampling) String() string {
	switch s {
	case Uniform:
		return "uniform"
	case Permutation:
		return "perm"
	case GapSampling:
		return "gap"
	case GapSamplingInOrder:
		return "gap-in-order"
	case ExamplePermutation:
		return "example-perm"
	}
	return fmt.Sprintf("Sampling(%d)", int(s))
}

func (s StepSize) String() string {
	switch s {
	case LineSearch:
		return "line"
	case Predefined:
		return "predefined"
	}
	return fmt.Sprintf("StepSize(%d)", int(s))
}

// ParseStepSize parses "line" or "predefined".
func ParseStepSize(s string) (StepSize, error) {
	for _, v := range []StepSize{LineSearch, Predefined} {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown step size %q (want line or predefined)", s)
}

// ParseAlgorithm parses "bcfw", "fw", "ssg", "cp" or "online-eg".
func ParseAlgorithm(s string) (Algorithm, error) {
	for _, a := range []Algorithm{BCFW, FW, SSG, CuttingPlane, OnlineEG} {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown solver %q (want bcfw, fw, ssg, cp or online-eg)", s)
}

// ParseSampling parses "uniform", "perm", "gap", "gap-in-order" or
// "example-perm" (the last for the soft solver only).
func ParseSampling(s string) (Sampling, error) {
	for _, v := range []Sampling{Uniform, Permutation, GapSampling, GapSamplingInOrder, ExamplePermutation} {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown sampling %q (want uniform, perm, gap, gap-in-order, or example-perm for the soft solver)", s)
}

// MarshalText writes the sampling's name.
func (s Sampling) MarshalText() ([]byte, error) { return known(s.String(), s, ParseSampling) }

// UnmarshalText reads what MarshalText writes.
func (s *Sampling) UnmarshalText(b []byte) error { return parseInto(s, string(b), ParseSampling) }

// MarshalText writes the step size rule's name.
func (s StepSize) MarshalText() ([]byte, error) { return known(s.String(), s, ParseStepSize) }

// UnmarshalText reads what MarshalText writes.
func (s *StepSize) UnmarshalText(b []byte) error { return parseInto(s, string(b), ParseStepSize) }

// MarshalText writes the average's name.
func (k AverageKind) MarshalText() ([]byte, error) { return known(k.String(), k, ParseAverageKind) }

// UnmarshalText reads what MarshalText writes.
func (k *AverageKind) UnmarshalText(b []byte) error { return parseInto(k, string(b), ParseAverageKind) }

// known returns name as text when parse reads it back as v (an enum value
// out of range has no name to write).
func known[T comparable](name string, v T, parse func(string) (T, error)) ([]byte, error) {
	if got, err := parse(name); err != nil || got != v {
		return nil, fmt.Errorf("no name for %s", name)
	}
	return []byte(name), nil
}

// parseInto sets *dst to the value parse reads from s.
func parseInto[T any](dst *T, s string, parse func(string) (T, error)) error {
	v, err := parse(s)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// AverageKind selects the average of the iterates a method keeps
// (Lacoste-Julien et al. 2013, App. C and F); the trace's primal_avg,
// dual_avg and gap_avg describe it. The zero value keeps none.
type AverageKind int

const (
	// NoAverage keeps no average.
	NoAverage AverageKind = iota
	// WeightedAverage weighs iterate k by k (eq. 14): the -wavg methods.
	WeightedAverage
	// SuffixAverage is the 0.5-suffix average (eq. 15) by the doubling
	// trick: the uniform average of the iterates since the last iteration
	// that was a power of 2 (App. F): the -tavg methods.
	SuffixAverage
	// UniformAverage is the uniform average of every iterate since the
	// start: SSG-avg.
	UniformAverage
)

func (k AverageKind) String() string {
	switch k {
	case NoAverage:
		return "none"
	case WeightedAverage:
		return "wavg"
	case SuffixAverage:
		return "tavg"
	case UniformAverage:
		return "avg"
	}
	return fmt.Sprintf("AverageKind(%d)", int(k))
}

// ParseAverageKind parses "none", "wavg", "tavg" or "avg" (the method
// suffixes of the paper: BCFW-wavg, BCFW-tavg, SSG-avg).
func ParseAverageKind(s string) (AverageKind, error) {
	for _, k := range []AverageKind{NoAverage, WeightedAverage, SuffixAverage, UniformAverage} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown average %q (want none, wavg, tavg or avg)", s)
}
