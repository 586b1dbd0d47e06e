package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// Kind selects the kernel function on inputs.
type Kind int

const (
	// Linear is k(x, x') = <x, x'>: the kernelized solver then solves the
	// same problem as the primal one (solver.Solver) on oracles.Multiclass.
	Linear Kind = iota
	// RBF is the Gaussian kernel k(x, x') = exp(-Gamma |x - x'|^2).
	RBF
	// Poly is the polynomial kernel k(x, x') = (Gamma <x, x'> + Coef0)^Degree.
	Poly
)

// Kernel is a kernel function on input vectors, as plain data (what a
// configuration and a model file keep). The joint kernel of the multiclass
// problems is k((x, y), (x', y')) = Kernel(x, x') [y = y'].
type Kernel struct {
	Kind Kind `json:"kind"`
	// Gamma scales RBF and Poly (> 0).
	Gamma float64 `json:"gamma,omitempty"`
	// Degree is the degree of Poly (>= 1).
	Degree int `json:"degree,omitempty"`
	// Coef0 is the constant of Poly (>= 0, so that the kernel is positive
	// semi-definite for every degree).
	Coef0 float64 `json:"coef0,omitempty"`
}

func (k Kind) String() string {
	switch k {
	case Linear:
		return "linear"
	case RBF:
		return "rbf"
	case Poly:
		return "poly"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind parses "linear", "rbf" or "poly".
func ParseKind(s string) (Kind, error) {
	for _, k := range []Kind{Linear, RBF, Poly} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown kernel %q (want linear, rbf or poly)", s)
}

func (k Kernel) String() string {
	switch k.Kind {
	case RBF:
		return fmt.Sprintf("rbf(gamma=%g)", k.Gamma)
	case Poly:
		return fmt.Sprintf("poly(gamma=%g, degree=%d, coef0=%g)", k.Gamma, k.Degree, k.Coef0)
	}
	return k.Kind.String()
}

// Validate checks the parameters the kind uses.
func (k Kernel) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch k.Kind {
	case Linear:
		return nil
	case RBF:
		if !(k.Gamma > 0) || bad(k.Gamma) {
			return fmt.Errorf("kernel: rbf needs gamma > 0, got %v", k.Gamma)
		}
		return nil
	case Poly:
		switch {
		case !(k.Gamma > 0) || bad(k.Gamma):
			return fmt.Errorf("kernel: poly needs gamma > 0, got %v", k.Gamma)
		case k.Degree < 1:
			return fmt.Errorf("kernel: poly needs degree >= 1, got %d", k.Degree)
		case !(k.Coef0 >= 0) || bad(k.Coef0):
			return fmt.Errorf("kernel: poly needs coef0 >= 0 (a positive semi-definite kernel), got %v", k.Coef0)
		}
		return nil
	}
	return fmt.Errorf("kernel: unknown kind %d", int(k.Kind))
}

// Eval returns k(a, b) for two dense inputs of the same length.
func (k Kernel) Eval(a, b []float64) float64 {
	return k.eval(floats.Dot(a, b), floats.Dot(a, a), floats.Dot(b, b))
}

// eval returns the kernel from <a, b> and the squared norms |a|^2, |b|^2.
func (k Kernel) eval(dot, na, nb float64) float64 {
	switch k.Kind {
	case RBF:
		return math.Exp(-k.Gamma * math.Max(na+nb-2*dot, 0))
	case Poly:
		return math.Pow(k.Gamma*dot+k.Coef0, float64(k.Degree))
	}
	return dot
}
