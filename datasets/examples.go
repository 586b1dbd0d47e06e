package datasets

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// Examples is a multiclass data set as the generic readers (ReadSVMLight,
// ReadCSV) return it: feature vectors and labels as the file writes them,
// before the labels become classes and the features are scaled (see
// NewMulticlassData).
type Examples struct {
	// Name is the file name used in error messages.
	Name string
	// X holds the feature vector of each example: 0-based feature indices
	// in increasing order, without zero values.
	X []oracles.SparseVec
	// Labels holds the label of each example. A label that is a finite
	// number is kept in canonical form (strconv's shortest 'g' format:
	// "+1", "1.0" and "1" are all "1"); any other label as written, without
	// surrounding spaces.
	Labels []string
	// Lines holds the line of each example in the file (1-based).
	Lines []int
	// NumFeatures is the number of features: 1 + the largest index for
	// svmlight, the number of feature columns for CSV.
	NumFeatures int
	// FeatureNames holds the names of the feature columns from a CSV
	// header, in the order of the indices; nil without a header.
	FeatureNames []string
}

// Len returns the number of examples.
func (e *Examples) Len() int { return len(e.Labels) }

// add appends an example.
func (e *Examples) add(x oracles.SparseVec, label string, line int) {
	e.X = append(e.X, x)
	e.Labels = append(e.Labels, label)
	e.Lines = append(e.Lines, line)
}

// canonicalLabel returns the canonical form of a label (see
// Examples.Labels) and whether it is a finite number.
func canonicalLabel(s string) (string, bool) {
	s = strings.TrimSpace(s)
	v, ok := parseDecimal(s)
	if !ok {
		return s, false
	}
	if v == 0 {
		v = 0 // -0 and 0 are one class
	}
	return strconv.FormatFloat(v, 'g', -1, 64), true
}

// sortedClasses returns the distinct labels of the sets in the order of
// their classes: numerically when every label is a number, else
// lexicographically (byte-wise).
func sortedClasses(sets ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	numeric := true
	for _, labels := range sets {
		for _, l := range labels {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
				_, isNum := canonicalLabel(l)
				numeric = numeric && isNum
			}
		}
	}
	if numeric {
		slices.SortFunc(out, func(a, b string) int {
			x, _ := parseDecimal(a)
			y, _ := parseDecimal(b)
			return cmp.Compare(x, y)
		})
	} else {
		slices.Sort(out)
	}
	return out
}

// numFeaturesOf returns 1 + the largest feature index of x (0 when x
// holds no feature). The vectors must be sorted.
func numFeaturesOf(x []oracles.SparseVec) int {
	n := 0
	for _, v := range x {
		if len(v.Idx) > 0 {
			n = max(n, int(v.Idx[len(v.Idx)-1])+1)
		}
	}
	return n
}
