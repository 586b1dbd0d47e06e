package methodcheck

import (
	"bytes"
	"io"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/run/runtest"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// problemFor returns a small problem each method trains on.
func problemFor(t testing.TB, name string) oracles.Problem {
	switch name {
	case "exact", "kernel", "kernel-fw", "kernel-exact":
		return oraclestest.Multiclass(24, 3, 4, 1)
	case "soft", "lp-hard":
		m, err := gendata.MultiLabel(10, 3, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		r, err := factorgraph.NewRounded(m)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	return oraclestest.Chain(oraclestest.ChainConfig{N: 10, MaxLen: 4, Labels: 3, Features: 4, Density: 0.7, Seed: 3})
}

// variants lists, for every method, the method with each of its settings
// away from its default in turn (the field named); the zero value with a
// lambda comes first. Every exported field of every method type must be
// varied here (TestEveryFieldIsVaried), so that a new knob gets a test.
func variants() map[string][]variant {
	const d = 30 // the chain's dimension (problemFor)
	box := func(d int) *solver.Box {
		lo := make([]float64, d)
		for j := range lo {
			lo[j] = math.Inf(-1)
		}
		lo[0] = 0
		return &solver.Box{Lower: lo}
	}
	rbf := kernel.Kernel{Kind: kernel.RBF, Gamma: 0.5}
	bcfw := solver.BCFW{Lambda: 0.1}
	with := func(f string, m run.Method, also ...string) variant { return variant{field: f, m: m, also: also} }
	return map[string][]variant{
		"bcfw": {
			with("", bcfw),
			with("Sampling", solver.BCFW{Lambda: 0.1, Sampling: run.GapSamplingInOrder}),
			with("Step", solver.BCFW{Lambda: 0.1, Step: solver.Pairwise}),
			with("Cache", solver.BCFW{Lambda: 0.1, Cache: &solver.Cache{F: 0.5, Nu: 0.1, MaxSize: 4, InitialGap: 1}}),
			with("Average", solver.BCFW{Lambda: 0.1, Average: run.SuffixAverage}),
			with("Box", solver.BCFW{Lambda: 0.1, Box: box(d)}),
			with("GapEvery", solver.BCFW{Lambda: 0.1, GapEvery: 3}),
			with("TraceEvery", solver.BCFW{Lambda: 0.1, TraceEvery: 2}),
			with("Seed", solver.BCFW{Lambda: 0.1, Seed: 7}),
			with("Storage", solver.BCFW{Lambda: 0.1, Storage: solver.SparseBlocks}),
		},
		"mp-bcfw": {
			with("", solver.MultiPlane{Lambda: 0.1}),
			with("N", solver.MultiPlane{Lambda: 0.1, N: 5}),
			with("T", solver.MultiPlane{Lambda: 0.1, T: -1}),
			with("M", solver.MultiPlane{Lambda: 0.1, M: 3}),
			with("Cost", solver.MultiPlane{Lambda: 0.1, Cost: &solver.CostRule{Ratio: 20, Update: 3}}),
			with("Step", solver.MultiPlane{Lambda: 0.1, Step: solver.Away}),
			with("Averaging", solver.MultiPlane{Lambda: 0.1, Averaging: true}),
			with("Box", solver.MultiPlane{Lambda: 0.1, Box: box(d)}),
			with("GapEvery", solver.MultiPlane{Lambda: 0.1, GapEvery: -1}),
			with("TraceEvery", solver.MultiPlane{Lambda: 0.1, TraceEvery: 1}),
			with("Seed", solver.MultiPlane{Lambda: 0.1, Seed: 3}),
		},
		"fw": {
			with("", solver.FW{Lambda: 0.1}),
			with("StepSize", solver.FW{Lambda: 0.1, StepSize: run.Predefined}),
			with("Average", solver.FW{Lambda: 0.1, Average: run.WeightedAverage}),
			with("Box", solver.FW{Lambda: 0.1, Box: box(d)}),
			with("GapEvery", solver.FW{Lambda: 0.1, GapEvery: 2}),
			with("TraceEvery", solver.FW{Lambda: 0.1, TraceEvery: 3}),
		},
		"ssg": {
			with("", solver.SSG{Lambda: 0.1}),
			with("Average", solver.SSG{Lambda: 0.1, Average: run.UniformAverage}),
			with("Box", solver.SSG{Lambda: 0.1, Box: box(d)}),
			with("GapEvery", solver.SSG{Lambda: 0.1, GapEvery: 2}),
			with("TraceEvery", solver.SSG{Lambda: 0.1, TraceEvery: 2}),
			with("Seed", solver.SSG{Lambda: 0.1, Seed: 2}),
		},
		"cp": {
			with("", solver.CuttingPlane{Lambda: 0.1}),
			with("Tol", solver.CuttingPlane{Lambda: 0.1, Tol: 0.01}),
			with("Cache", solver.CuttingPlane{Lambda: 0.1, Cache: -1}),
			with("GapEvery", solver.CuttingPlane{Lambda: 0.1, GapEvery: 2}),
			with("TraceEvery", solver.CuttingPlane{Lambda: 0.1, TraceEvery: 2}),
		},
		"online-eg": {
			with("", solver.OnlineEG{Lambda: 0.1}),
			with("Average", solver.OnlineEG{Lambda: 0.1, Average: run.WeightedAverage}),
			with("GapEvery", solver.OnlineEG{Lambda: 0.1, GapEvery: 2}),
			with("TraceEvery", solver.OnlineEG{Lambda: 0.1, TraceEvery: 2}),
			with("Seed", solver.OnlineEG{Lambda: 0.1, Seed: 4}),
		},
		"exact": {
			with("", solver.Exact{Lambda: 0.1}),
			with("Sampling", solver.Exact{Lambda: 0.1, Sampling: run.GapSampling}),
			with("Shrinking", solver.Exact{Lambda: 0.1, Sampling: run.Permutation, Shrinking: true}, "Sampling"),
			with("Average", solver.Exact{Lambda: 0.1, Average: run.WeightedAverage}),
			with("GapEvery", solver.Exact{Lambda: 0.1, GapEvery: 2}),
			with("TraceEvery", solver.Exact{Lambda: 0.1, TraceEvery: 2}),
			with("Seed", solver.Exact{Lambda: 0.1, Seed: 5}),
		},
		"lp-hard": {
			with("", solver.LPHard{BCFW: bcfw}),
			with("BCFW", solver.LPHard{BCFW: solver.BCFW{Lambda: 0.1, Step: solver.Pairwise, Cache: &solver.Cache{}, Sampling: run.GapSampling}}),
		},
		"soft": {
			with("", soft.BCFW{Lambda: 0.1, Rho: 1}),
			with("Rho", soft.BCFW{Lambda: 0.1, Rho: 0.3}),
			with("Sampling", soft.BCFW{Lambda: 0.1, Rho: 1, Sampling: run.ExamplePermutation}),
			with("GapEvery", soft.BCFW{Lambda: 0.1, Rho: 1, GapEvery: 3}),
			with("TraceEvery", soft.BCFW{Lambda: 0.1, Rho: 1, TraceEvery: 2}),
			with("Seed", soft.BCFW{Lambda: 0.1, Rho: 1, Seed: 3}),
		},
		"kernel": {
			with("", kernel.BCFW{Lambda: 0.1}),
			with("Kernel", kernel.BCFW{Lambda: 0.1, Kernel: rbf}),
			with("Sampling", kernel.BCFW{Lambda: 0.1, Sampling: run.Permutation}),
			with("StepSize", kernel.BCFW{Lambda: 0.1, StepSize: run.Predefined}),
			with("Averaging", kernel.BCFW{Lambda: 0.1, Averaging: true}),
			with("GapEvery", kernel.BCFW{Lambda: 0.1, GapEvery: 2}),
			with("TraceEvery", kernel.BCFW{Lambda: 0.1, TraceEvery: 2}),
			with("Seed", kernel.BCFW{Lambda: 0.1, Seed: 2}),
			with("CacheBytes", kernel.BCFW{Lambda: 0.1, CacheBytes: 1 << 16}),
			with("CacheFloat32", kernel.BCFW{Lambda: 0.1, CacheBytes: 1 << 16, CacheFloat32: true}, "CacheBytes"),
		},
		"kernel-fw": {
			with("", kernel.FW{Lambda: 0.1}),
			with("Kernel", kernel.FW{Lambda: 0.1, Kernel: rbf}),
			with("StepSize", kernel.FW{Lambda: 0.1, StepSize: run.Predefined}),
			with("Averaging", kernel.FW{Lambda: 0.1, Averaging: true}),
			with("GapEvery", kernel.FW{Lambda: 0.1, GapEvery: 3}),
			with("TraceEvery", kernel.FW{Lambda: 0.1, TraceEvery: 2}),
		},
		"kernel-exact": {
			with("", kernel.Exact{Lambda: 0.1}),
			with("Kernel", kernel.Exact{Lambda: 0.1, Kernel: rbf}),
			with("Sampling", kernel.Exact{Lambda: 0.1, Sampling: run.GapSampling}),
			with("Shrinking", kernel.Exact{Lambda: 0.1, Sampling: run.Permutation, Shrinking: true}, "Sampling"),
			with("Averaging", kernel.Exact{Lambda: 0.1, Averaging: true}),
			with("GapEvery", kernel.Exact{Lambda: 0.1, GapEvery: 3}),
			with("TraceEvery", kernel.Exact{Lambda: 0.1, TraceEvery: 2}),
			with("Seed", kernel.Exact{Lambda: 0.1, Seed: 6}),
			with("CacheBytes", kernel.Exact{Lambda: 0.1, CacheBytes: 1 << 16}),
			with("CacheFloat32", kernel.Exact{Lambda: 0.1, CacheBytes: 1 << 16, CacheFloat32: true}, "CacheBytes"),
		},
	}
}

type variant struct {
	field string // the setting away from its default ("": none)
	m     run.Method
	also  []string // the settings field needs set as well
}

// TestEveryMethodIsVaried: the table covers every registered method, and
// every exported field of every method type.
func TestEveryFieldIsVaried(t *testing.T) {
	vs := variants()
	for _, name := range run.Methods() {
		list, ok := vs[name]
		if !ok {
			t.Errorf("method %s is registered but has no variants", name)
			continue
		}
		varied := map[string]bool{}
		for _, v := range list {
			if v.m.Name() != name {
				t.Errorf("a variant of %s is a %s", name, v.m.Name())
			}
			varied[v.field] = true
		}
		typ := reflect.TypeOf(list[0].m)
		for k := 0; k < typ.NumField(); k++ {
			f := typ.Field(k)
			if f.IsExported() && f.Name != "Lambda" && !varied[f.Name] {
				t.Errorf("%s.%s is not varied by the test", typ, f.Name)
			}
		}
	}
	if len(vs) != len(run.Methods()) {
		t.Errorf("%d methods in the table, %d registered (%v)", len(vs), len(run.Methods()), run.Methods())
	}
}

// TestSettingsAreRead: every setting of every method is one its solver
// reads: the solver reports it back (Method) as given, every other setting
// at its default; a method and its JSON encoding decode to each other; a
// run of the method saves a checkpoint that the registry loads back as the
// same method.
func TestSettingsAreRead(t *testing.T) {
	for name, list := range variants() {
		p := problemFor(t, name)
		base := list[0].m
		bs, err := base.New(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defaults := bs.Method()
		for _, v := range list {
			t.Run(name+"/"+v.field, func(t *testing.T) {
				s, err := v.m.New(p)
				if err != nil {
					t.Fatal(err)
				}
				got := s.Method()
				if got.Name() != name {
					t.Fatalf("a %s run reports the method %s", name, got.Name())
				}
				enc, err := run.Encode(got)
				if err != nil {
					t.Fatal(err)
				}
				dec, err := run.Decode(enc)
				if err != nil || !run.Same(dec, got) {
					t.Fatalf("%s decodes to %+v (%v)", enc, dec, err)
				}
				// The varied field, and only it, differs from the defaults.
				gv, dv := reflect.ValueOf(got), reflect.ValueOf(defaults)
				for k := 0; k < gv.NumField(); k++ {
					f := gv.Type().Field(k).Name
					same := reflect.DeepEqual(gv.Field(k).Interface(), dv.Field(k).Interface())
					if f == v.field && same {
						t.Errorf("%s.%s = %v is not read: the run reports the default", name, f, reflect.ValueOf(v.m).Field(k))
					}
					if f != v.field && !same && !slices.Contains(v.also, f) {
						t.Errorf("%s with %s set reports %s = %v, the default is %v", name, v.field, f, gv.Field(k), dv.Field(k))
					}
				}
				var buf bytes.Buffer
				if err := s.Save(&buf); err != nil {
					t.Fatal(err)
				}
				l, err := run.Load(&buf, p)
				if err != nil {
					t.Fatal(err)
				}
				if !run.Same(l.Method(), got) {
					t.Fatalf("loaded as %+v, saved as %+v", l.Method(), got)
				}
			})
		}
	}
}

// TestConformance runs the conformance suite of runtest on every method
// with its settings away from the defaults, through the registry's Load.
func TestConformance(t *testing.T) {
	for name, list := range variants() {
		p := problemFor(t, name)
		for _, v := range list[1:] {
			if v.field == "CacheFloat32" {
				continue // its results depend on what the cache holds, which a checkpoint does not (documented)
			}
			m := v.m.WithLambda(0.05)
			if mp, ok := m.(solver.MultiPlane); ok && mp.Cost == nil {
				mp.Cost = &solver.CostRule{Ratio: 20} // the time rule is not reproducible
				m = mp
			}
			t.Run(name+"/"+v.field, func(t *testing.T) {
				f := runtest.Family{
					New:     func() (run.Solver, error) { return m.New(p, run.WithWorkers(1)) },
					Load:    func(r io.Reader) (run.Solver, error) { return run.Load(r, p, run.WithWorkers(1)) },
					Iterate: iterate,
					NoGap:   name == "ssg",
				}
				runtest.Conformance(t, f)
			})
		}
	}
}

// iterate is what the conformance suite compares of two runs: the weights,
// or a kernel run's dual variables.
func iterate(s run.Solver) []float64 {
	if w := s.Weights(); w != nil {
		return w
	}
	ks := s.(*kernel.Solver)
	var alpha []float64
	for i := 0; i < ks.Problem().Len(); i++ {
		alpha = append(alpha, ks.Alpha(i)...)
	}
	return alpha
}

// brokenSize is a user's problem whose Len and Dim panic.
type brokenSize struct{ oracles.Problem }

func (brokenSize) Len() int { panic("Len of a broken problem") }
func (brokenSize) Dim() int { panic("Dim of a broken problem") }

// TestNewNeverPanics: a user's problem that panics in Len or Dim (issue 35
// item 13), or is nil, is an error of every method's New, never a panic.
func TestNewNeverPanics(t *testing.T) {
	for _, name := range run.Methods() {
		proto, err := run.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		m := proto.WithLambda(0.1)
		for _, p := range []oracles.Problem{brokenSize{problemFor(t, name)}, nil} {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s.New(%T) panicked: %v", name, p, r)
					}
				}()
				if _, err := m.New(p); err == nil {
					t.Errorf("%s.New(%T) accepted it", name, p)
				}
			}()
		}
	}
}
