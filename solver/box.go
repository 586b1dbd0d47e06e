package solver

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// boxJSON is a Box as JSON writes it: an infinite bound (no bound on that
// side) is null, which JSON can write where it cannot write infinity.
type boxJSON struct {
	Lower []*float64 `json:"lower,omitempty"`
	Upper []*float64 `json:"upper,omitempty"`
}

// MarshalJSON writes the bounds, infinite ones as null.
func (b Box) MarshalJSON() ([]byte, error) {
	bounds := func(x []float64) []*float64 {
		if x == nil {
			return nil
		}
		out := make([]*float64, len(x))
		for j := range x {
			if !math.IsInf(x[j], 0) {
				out[j] = &x[j]
			}
		}
		return out
	}
	return json.Marshal(boxJSON{Lower: bounds(b.Lower), Upper: bounds(b.Upper)})
}

// UnmarshalJSON reads what MarshalJSON writes: null is -Inf in Lower and
// +Inf in Upper.
func (b *Box) UnmarshalJSON(data []byte) error {
	var j boxJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	bounds := func(x []*float64, none float64) []float64 {
		if x == nil {
			return nil
		}
		out := make([]float64, len(x))
		for k, v := range x {
			out[k] = none
			if v != nil {
				out[k] = *v
			}
		}
		return out
	}
	b.Lower, b.Upper = bounds(j.Lower, math.Inf(-1)), bounds(j.Upper, math.Inf(1))
	return nil
}

func (b *Box) lower(j int) float64 {
	if b == nil || b.Lower == nil {
		return math.Inf(-1)
	}
	return b.Lower[j]
}

func (b *Box) upper(j int) float64 {
	if b == nil || b.Upper == nil {
		return math.Inf(1)
	}
	return b.Upper[j]
}

// clip returns v truncated to [lower_j, upper_j].
func (b *Box) clip(j int, v float64) float64 {
	if lo := b.lower(j); v < lo {
		return lo
	}
	if hi := b.upper(j); v > hi {
		return hi
	}
	return v
}

// clipAt sets w_j = [v_j] for the coordinates j of idx (clip, without a
// call per coordinate).
func (b *Box) clipAt(w, v []float64, idx []int32) {
	lo, hi := b.Lower, b.Upper
	for _, j := range idx {
		x := v[j]
		if lo != nil && x < lo[j] {
			x = lo[j]
		} else if hi != nil && x > hi[j] {
			x = hi[j]
		}
		w[j] = x
	}
}

// clipAll sets w = [v] (the truncation of Osokin et al. 2016, Alg. 8-9).
func (b *Box) clipAll(w, v []float64) {
	for j, x := range v {
		w[j] = b.clip(j, x)
	}
}

// dualTerm returns beta_u^T u - beta_l^T l at the optimal box multipliers
// beta_u = [v - u]_+ and beta_l = [l - v]_+ (Osokin et al. 2016, eq. 52-56).
// Coordinates without an active bound contribute nothing.
func (b *Box) dualTerm(v []float64) float64 {
	if b == nil {
		return 0
	}
	var s float64
	for j, x := range v {
		if hi := b.upper(j); x > hi {
			s += (x - hi) * hi
		} else if lo := b.lower(j); x < lo {
			s -= (lo - x) * lo
		}
	}
	return s
}

// validate checks the box against dimension d.
func (b *Box) validate(d int) error {
	if b == nil {
		return nil
	}
	if b.Lower != nil && len(b.Lower) != d {
		return fmt.Errorf("solver: box lower bound has %d entries, the problem has dimension %d", len(b.Lower), d)
	}
	if b.Upper != nil && len(b.Upper) != d {
		return fmt.Errorf("solver: box upper bound has %d entries, the problem has dimension %d", len(b.Upper), d)
	}
	for j := 0; j < d; j++ {
		lo, hi := b.lower(j), b.upper(j)
		if math.IsNaN(lo) || math.IsNaN(hi) || lo > hi || math.IsInf(lo, 1) || math.IsInf(hi, -1) {
			return fmt.Errorf("solver: box bounds of coordinate %d are infeasible: [%v, %v]", j, lo, hi)
		}
	}
	return nil
}

// effectiveBox intersects the user's box with the bounds a Bounded problem
// needs; it returns nil when neither bounds anything.
func effectiveBox(user *Box, p oracles.Problem) (*Box, error) {
	b, ok := p.(oracles.Bounded)
	if !ok {
		return user, nil
	}
	lo, hi := b.WeightBounds()
	model := &Box{Lower: lo, Upper: hi}
	d := p.Dim()
	if err := model.validate(d); err != nil {
		return nil, fmt.Errorf("%w (the problem's WeightBounds)", err)
	}
	if lo == nil && hi == nil {
		return user, nil
	}
	if user == nil {
		return model, nil
	}
	out := &Box{Lower: make([]float64, d), Upper: make([]float64, d)}
	for j := 0; j < d; j++ {
		out.Lower[j] = math.Max(user.lower(j), model.lower(j))
		out.Upper[j] = math.Min(user.upper(j), model.upper(j))
		if out.Lower[j] > out.Upper[j] {
			return nil, fmt.Errorf("solver: the box [%v, %v] asked for coordinate %d excludes every value the model allows, [%v, %v]", user.lower(j), user.upper(j), j, model.lower(j), model.upper(j))
		}
	}
	return out, nil
}
