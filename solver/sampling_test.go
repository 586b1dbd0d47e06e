package solver

import "testing"

// TestParseSampling: every sampling's name parses back to it, and an
// unknown name is an error that lists the names.
func TestParseSampling(t *testing.T) {
	for _, s := range []Sampling{Uniform, Permutation, GapSampling, ExamplePermutation} {
		got, err := ParseSampling(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSampling(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseSampling("example"); err == nil {
		t.Error("ParseSampling accepted an unknown name")
	}
}
