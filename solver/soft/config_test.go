package soft

import (
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

func TestConfigValidation(t *testing.T) {
	m := tinyModel(t, 1, 2, []int{2, 3}, [][]int{{0, 1}}, 2)
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // substring of the error; empty: valid
	}{
		{"valid", Config{Lambda: 0.1, Rho: 1}, ""},
		{"valid with every option", Config{Lambda: 0.1, Rho: 1e-3, Sampling: run.GapSampling, GapEvery: inf, TraceEvery: 0.5, Seed: 9}, ""},
		{"rho zero", Config{Lambda: 0.1}, "rho"},
		{"rho negative", Config{Lambda: 0.1, Rho: -1}, "rho"},
		{"rho NaN", Config{Lambda: 0.1, Rho: nan}, "rho"},
		{"rho +Inf", Config{Lambda: 0.1, Rho: inf}, "rho"},
		{"rho -Inf", Config{Lambda: 0.1, Rho: math.Inf(-1)}, "rho"},
		{"lambda zero", Config{Rho: 1}, "lambda"},
		{"lambda NaN", Config{Lambda: nan, Rho: 1}, "lambda"},
		{"lambda +Inf", Config{Lambda: inf, Rho: 1}, "lambda"},
		{"unknown sampling", Config{Lambda: 1, Rho: 1, Sampling: 7}, "sampling"},
		{"negative GapEvery", Config{Lambda: 1, Rho: 1, GapEvery: -1}, "GapEvery"},
		{"NaN GapEvery", Config{Lambda: 1, Rho: 1, GapEvery: nan}, "GapEvery"},
		{"negative TraceEvery", Config{Lambda: 1, Rho: 1, TraceEvery: -1}, "TraceEvery"},
		{"infinite TraceEvery", Config{Lambda: 1, Rho: 1, TraceEvery: inf}, "TraceEvery"},
		{"NaN TraceEvery", Config{Lambda: 1, Rho: 1, TraceEvery: nan}, "TraceEvery"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(m, tc.cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid config refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("%+v accepted", tc.cfg)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not name %s", err, tc.want)
			}
		})
	}
	if _, err := New(nil, Config{Lambda: 1, Rho: 1}); err == nil {
		t.Fatal("nil model accepted")
	}
	if _, err := New(m, Config{Lambda: 1, Rho: 1}, WithWorkers(-1)); err == nil {
		t.Fatal("negative workers accepted")
	}
	other := tinyModel(t, 1, 2, []int{2, 2}, nil, 1)
	if _, err := New(m, Config{Lambda: 1, Rho: 1}, WithTest(oneView(t, other))); err == nil {
		t.Fatal("test problem of another dimension accepted")
	}
}
