package solver

import (
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestParseSampling: every sampling's name parses back to it, and an
// unknown name is an error that lists the names.
func TestParseSampling(t *testing.T) {
	for _, s := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling, run.ExamplePermutation} {
		got, err := run.ParseSampling(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSampling(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := run.ParseSampling("example"); err == nil {
		t.Error("ParseSampling accepted an unknown name")
	}
}
