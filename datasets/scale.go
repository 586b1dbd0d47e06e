package datasets

import (
	"fmt"
	"math"
	"slices"

	"github.com/fwstruct/fwstruct/oracles"
)

// Scaling selects how NewMulticlassData scales the features. The zero value,
// ScaleNone, keeps them as read.
type Scaling int

const (
	// ScaleNone keeps the features as read.
	ScaleNone Scaling = iota
	// ScaleMinMax maps every feature to [0, 1] on the training set,
	// x' = (x - min) / (max - min) (a constant feature becomes x - min),
	// as sklearn's MinMaxScaler. A non-negative sparse feature keeps its
	// zeros, so sparse data stays sparse.
	ScaleMinMax
	// ScaleStandardize gives every feature mean 0 and variance 1 on the
	// training set, x' = (x - mean) / std with the population standard
	// deviation (a constant feature becomes x - mean), as sklearn's
	// StandardScaler. Centering turns the zeros of a feature with a
	// non-zero mean into non-zero values: sparse data becomes dense.
	ScaleStandardize
)

var scalingNames = []string{"none", "minmax", "standardize"}

// String returns "none", "minmax" or "standardize" (the forms ParseScaling
// accepts).
func (s Scaling) String() string { return enumName(scalingNames, int(s), "Scaling") }

// ParseScaling parses "none", "minmax" or "standardize".
func ParseScaling(s string) (Scaling, error) {
	return parseEnum[Scaling](scalingNames, s, "scaling")
}

// MarshalText encodes the scaling by name, so that JSON files (a model's
// preprocessing) read "standardize" rather than a number.
func (s Scaling) MarshalText() ([]byte, error) {
	if s < ScaleNone || int(s) >= len(scalingNames) {
		return nil, fmt.Errorf("unknown scaling %d", int(s))
	}
	return []byte(scalingNames[s]), nil
}

// UnmarshalText decodes a name written by MarshalText.
func (s *Scaling) UnmarshalText(b []byte) error {
	v, err := ParseScaling(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// scalableData lists the datasets and formats whose features Options.Scaling
// can scale: the numeric features of the multiclass and multi-label data.
var scalableData = []string{"usps", "yeast", "mulan", "svmlight", "csv"}

// Scalable reports whether Options.Scaling applies to the dataset or
// format name (as Load and Data.Name spell it): usps, yeast, mulan,
// svmlight and csv, whose inputs are numeric features. The other datasets
// have features of their own design (binary pixels, attribute indicators,
// superpixel descriptors), which are not rescaled.
func Scalable(name string) bool { return slices.Contains(scalableData, name) }

// Scaler is an affine map of every feature, x'_f = (x_f - Offset[f]) *
// Factor[f], fitted on a training set by FitScaler and applied unchanged to
// the test set (and any later data), so that nothing about the test set
// leaks into training.
type Scaler struct {
	// Scaling is the kind of scaling fitted.
	Scaling Scaling `json:"scaling"`
	// Offset and Factor hold the map of each feature.
	Offset []float64 `json:"offset"`
	Factor []float64 `json:"factor"`
}

// Validate checks a scaler read from a file (a model's preprocessing): a
// known kind, as many offsets as factors, every offset finite and every
// factor finite and non-zero.
func (sc *Scaler) Validate() error {
	if sc.Scaling != ScaleMinMax && sc.Scaling != ScaleStandardize {
		return fmt.Errorf("scaler: kind %v, want minmax or standardize", sc.Scaling)
	}
	if len(sc.Offset) != len(sc.Factor) || len(sc.Offset) == 0 {
		return fmt.Errorf("scaler: %d offsets and %d factors, want as many of each, at least one", len(sc.Offset), len(sc.Factor))
	}
	for f := range sc.Offset {
		o, k := sc.Offset[f], sc.Factor[f]
		if math.IsNaN(o) || math.IsInf(o, 0) || math.IsNaN(k) || math.IsInf(k, 0) || k == 0 {
			return fmt.Errorf("scaler: feature %d: offset %v and factor %v, want finite numbers and a non-zero factor", f, o, k)
		}
	}
	return nil
}

// scaler returns the scaling of the preprocessing for training inputs x of
// numFeatures features: pre.Scaler when given (a scaling fitted before,
// e.g. stored in a model), which must be valid, of kind pre.Scaling (or
// pre.Scaling ScaleNone) and of numFeatures features; else the scaling
// pre.Scaling fitted on x (nil for ScaleNone).
func (pre Preprocess) scaler(x []oracles.SparseVec, numFeatures int) (*Scaler, error) {
	sc := pre.Scaler
	if sc == nil {
		return FitScaler(pre.Scaling, x, numFeatures)
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if pre.Scaling != ScaleNone && pre.Scaling != sc.Scaling {
		return nil, fmt.Errorf("the scaling given (%v) differs from the kind of the fitted scaler (%v)", pre.Scaling, sc.Scaling)
	}
	if len(sc.Offset) != numFeatures {
		return nil, fmt.Errorf("the fitted scaler maps %d features, the data has %d", len(sc.Offset), numFeatures)
	}
	return sc, nil
}

// FitScaler fits the scaling kind on the examples x with numFeatures
// features; a feature absent from an example counts as 0. ScaleNone
// returns nil (no scaler).
func FitScaler(kind Scaling, x []oracles.SparseVec, numFeatures int) (*Scaler, error) {
	switch kind {
	case ScaleNone:
		return nil, nil
	case ScaleMinMax, ScaleStandardize:
	default:
		return nil, fmt.Errorf("unknown scaling %v", kind)
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("scaling: no examples to fit on")
	}
	n := float64(len(x))
	count := make([]int, numFeatures)
	sc := &Scaler{Scaling: kind, Offset: make([]float64, numFeatures), Factor: make([]float64, numFeatures)}
	if kind == ScaleMinMax {
		lo, hi := make([]float64, numFeatures), make([]float64, numFeatures)
		for f := range lo {
			lo[f], hi[f] = math.Inf(1), math.Inf(-1)
		}
		for _, v := range x {
			for k, f := range v.Idx {
				lo[f] = math.Min(lo[f], v.Val[k])
				hi[f] = math.Max(hi[f], v.Val[k])
				count[f]++
			}
		}
		for f := range lo {
			if count[f] < len(x) { // some example has a 0
				lo[f], hi[f] = math.Min(lo[f], 0), math.Max(hi[f], 0)
			}
			sc.Offset[f] = lo[f]
			sc.Factor[f] = inverseSpread(hi[f] - lo[f])
		}
		return sc, nil
	}
	for _, v := range x {
		for k, f := range v.Idx {
			sc.Offset[f] += v.Val[k]
			count[f]++
		}
	}
	for f := range sc.Offset {
		sc.Offset[f] /= n
	}
	sq := make([]float64, numFeatures)
	for _, v := range x {
		for k, f := range v.Idx {
			d := v.Val[k] - sc.Offset[f]
			sq[f] += d * d
		}
	}
	const eps = 0x1p-52
	for f, m := range sc.Offset {
		variance := (sq[f] + float64(len(x)-count[f])*m*m) / n // the zeros too
		// A variance within rounding of 0 is a constant feature (the test
		// of sklearn's StandardScaler): only shift it.
		if bound := n*eps*variance + (n*m*eps)*(n*m*eps); variance <= bound {
			variance = 0
		}
		sc.Factor[f] = inverseSpread(math.Sqrt(variance))
	}
	return sc, nil
}

// inverseSpread returns 1/s, or 1 when s is 0 or 1/s is not finite (a
// constant feature is only shifted).
func inverseSpread(s float64) float64 {
	if inv := 1 / s; s > 0 && !math.IsInf(inv, 0) && !math.IsNaN(inv) {
		return inv
	}
	return 1
}

// Transform returns the scaled copies of x, without the zero values. The
// vectors of x must hold increasing indices below len(sc.Offset). A feature
// whose 0 does not map to 0 is stored in every example. A value that
// overflows is an error.
func (sc *Scaler) Transform(x []oracles.SparseVec) ([]oracles.SparseVec, error) {
	// The image of 0 of every feature, and the features where it is not 0.
	zero := make([]float64, len(sc.Offset))
	var dense []int32
	for f := range zero {
		zero[f] = -sc.Offset[f] * sc.Factor[f]
		if zero[f] != 0 {
			dense = append(dense, int32(f))
		}
	}
	out := make([]oracles.SparseVec, len(x))
	for i, v := range x {
		for k, f := range v.Idx {
			if f < 0 || int(f) >= len(zero) || (k > 0 && f <= v.Idx[k-1]) || len(v.Val) != len(v.Idx) {
				return nil, fmt.Errorf("scaling: example %d: indices must increase within [0, %d) with one value each", i, len(zero))
			}
		}
		// Room for one more entry: the bias NewMulticlassData appends.
		n := len(v.Idx) + len(dense) + 1
		w := oracles.SparseVec{Idx: make([]int32, 0, n), Val: make([]float64, 0, n)}
		// Merge the stored features of v with the dense ones.
		k, d := 0, 0
		for k < len(v.Idx) || d < len(dense) {
			var f int32
			var val float64
			switch {
			case d == len(dense) || (k < len(v.Idx) && v.Idx[k] < dense[d]):
				f, val = v.Idx[k], (v.Val[k]-sc.Offset[v.Idx[k]])*sc.Factor[v.Idx[k]]
				k++
			case k < len(v.Idx) && v.Idx[k] == dense[d]:
				f, val = v.Idx[k], (v.Val[k]-sc.Offset[v.Idx[k]])*sc.Factor[v.Idx[k]]
				k++
				d++
			default:
				f, val = dense[d], zero[dense[d]]
				d++
			}
			if math.IsInf(val, 0) || math.IsNaN(val) {
				return nil, fmt.Errorf("scaling: example %d: feature %d overflows", i, f)
			}
			if val != 0 {
				w.Append(f, val)
			}
		}
		out[i] = w
	}
	return out, nil
}
