package ssvmnb

import (
	"bytes"
	"fmt"
	"reflect"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// Family names the solver family a configuration selects: what a session
// file records so that it is loaded back by the right solver.
type family string

const (
	familyBCFW   family = "bcfw"   // package solver: BCFW, MP-BCFW, FW, SSG, cutting plane
	familySoft   family = "soft"   // package solver/soft
	familyKernel family = "kernel" // package solver/kernel
)

// engine is one family's solver as the Trainer drives it: run.Solver and
// what every family has besides, plus the warm starts (fork) and the
// configuration as a value of the family's Config type.
type engine interface {
	run.Solver
	Last() (run.Point, bool)
	Steps() int64
	OracleCalls() int64
	// SetWorkers sets the goroutines of the parallel parts (the solvers'
	// WithWorkers).
	SetWorkers(k int) error
	// weights returns the current weights (nil for a kernel run, whose
	// iterate is a kernel expansion: see Trainer.Weights).
	weights() []float64
	family() family
	config() any
	lambda() float64
	// fork returns a new engine that warm-starts from the current state
	// under cfg (of the family's Config type), or an error saying why the
	// family cannot make that change.
	fork(cfg any) (engine, error)
	// unwrap returns the family's solver itself.
	unwrap() run.Solver
}

// newEngine builds the solver of the family cfg belongs to on data.
func newEngine(data *Data, cfg any) (engine, error) {
	switch c := cfg.(type) {
	case solver.Config:
		s, err := solver.New(data.Train, c, solver.WithTest(data.Test))
		if err != nil {
			return nil, err
		}
		return bcfwEngine{s}, nil
	case soft.Config:
		m, test, err := data.factorGraph()
		if err != nil {
			return nil, err
		}
		s, err := soft.New(m, c, soft.WithTest(test))
		if err != nil {
			return nil, err
		}
		return softEngine{s, test}, nil
	case kernel.Config:
		train, test, err := data.multiclass()
		if err != nil {
			return nil, err
		}
		s, err := kernel.New(train, c, kernelTest(test), kernel.WithCache(kernelCache))
		if err != nil {
			return nil, err
		}
		return kernelEngine{s, test}, nil
	case nil:
		return nil, fmt.Errorf("a run needs a configuration: solver.Config, soft.Config or kernel.Config")
	}
	return nil, fmt.Errorf("a run's configuration is a solver.Config, soft.Config or kernel.Config, not a %T", cfg)
}

// familyOf returns the family of a configuration ("" for another type).
func familyOf(cfg any) family {
	switch cfg.(type) {
	case solver.Config:
		return familyBCFW
	case soft.Config:
		return familySoft
	case kernel.Config:
		return familyKernel
	}
	return ""
}

// loadEngine restores a solver of family f from its checkpoint on data.
func loadEngine(f family, checkpoint []byte, data *Data) (engine, error) {
	r := bytes.NewReader(checkpoint)
	switch f {
	case familyBCFW:
		s, err := solver.Load(r, data.Train, solver.WithTest(data.Test))
		if err != nil {
			return nil, err
		}
		return bcfwEngine{s}, nil
	case familySoft:
		m, test, err := data.factorGraph()
		if err != nil {
			return nil, err
		}
		s, err := soft.Load(r, m, soft.WithTest(test))
		if err != nil {
			return nil, err
		}
		return softEngine{s, test}, nil
	case familyKernel:
		train, test, err := data.multiclass()
		if err != nil {
			return nil, err
		}
		s, err := kernel.Load(r, train, kernelTest(test), kernel.WithCache(kernelCache))
		if err != nil {
			return nil, err
		}
		return kernelEngine{s, test}, nil
	}
	return nil, fmt.Errorf("unknown solver family %q", f)
}

// kernelCache is the budget of the kernel row cache of kernel runs (see
// kernel.WithCache; it never changes a result): USPS's 7,291 rows take 425
// MB, this holds 60% of them.
const kernelCache = 256 << 20

// kernelTest is kernel.WithTest for a test set that may be absent.
func kernelTest(test *oracles.Multiclass) kernel.Option {
	if test == nil {
		return func(*kernel.Solver) error { return nil }
	}
	return kernel.WithTest(test)
}

// bcfwEngine is package solver's engine.
type bcfwEngine struct{ *solver.Solver }

func (e bcfwEngine) weights() []float64 { return e.Weights() }
func (e bcfwEngine) family() family     { return familyBCFW }
func (e bcfwEngine) config() any        { return e.Config() }
func (e bcfwEngine) lambda() float64    { return e.Lambda() }

// fork: solver.Solver.Fork, which carries the state over to the new
// configuration (Osokin et al. 2016, Proposition 1 for a smaller lambda).
func (e bcfwEngine) fork(cfg any) (engine, error) {
	c, ok := cfg.(solver.Config)
	if !ok {
		return nil, fmt.Errorf("a %v run changes to a solver.Config, not a %T", e.Config().Algorithm, cfg)
	}
	f, err := e.Fork(c, solver.WithTest(e.Test()))
	if err != nil {
		return nil, err
	}
	return bcfwEngine{f}, nil
}

// softEngine is package solver/soft's engine.
type softEngine struct {
	*soft.Solver
	test oracles.Problem
}

func (e softEngine) weights() []float64 { return e.Weights() }
func (e softEngine) family() family     { return familySoft }
func (e softEngine) config() any        { return e.Config() }
func (e softEngine) lambda() float64    { return e.Config().Lambda }

// fork continues a soft run under its own configuration or one that
// differs only in Lambda (soft.Solver.SetLambda: the marginals stay
// feasible); the soft solver has no warm start under another change (a
// changed rho changes the agreement variables delta = A mu, a changed
// schedule or sampling its state).
func (e softEngine) fork(cfg any) (engine, error) {
	c, ok := cfg.(soft.Config)
	if !ok {
		return nil, fmt.Errorf("a soft run changes to a soft.Config, not a %T", cfg)
	}
	same := c
	same.Lambda = e.Config().Lambda
	if d := configDiff(e.Config(), same); d != "" {
		return nil, fmt.Errorf("the soft solver (package solver/soft) cannot change its configuration mid-run but for Lambda (%s): start a new run", d)
	}
	var buf bytes.Buffer
	if err := e.Save(&buf); err != nil {
		return nil, err
	}
	s, err := soft.Load(&buf, e.Model(), soft.WithTest(e.test))
	if err != nil {
		return nil, err
	}
	if err := s.SetLambda(withDefaults(c).(soft.Config).Lambda); err != nil {
		return nil, err
	}
	return softEngine{s, e.test}, nil
}

// kernelEngine is package solver/kernel's engine.
type kernelEngine struct {
	*kernel.Solver
	test *oracles.Multiclass
}

func (e kernelEngine) weights() []float64 { return nil }
func (e kernelEngine) family() family     { return familyKernel }
func (e kernelEngine) config() any        { return e.Config() }
func (e kernelEngine) lambda() float64    { return e.Config().Lambda }

// fork continues a kernel run under its own configuration or one that
// differs only in Lambda (kernel.Solver.SetLambda: the dual variables stay
// feasible); package solver/kernel has no warm start under another change.
func (e kernelEngine) fork(cfg any) (engine, error) {
	c, ok := cfg.(kernel.Config)
	if !ok {
		return nil, fmt.Errorf("a kernel run changes to a kernel.Config, not a %T", cfg)
	}
	same := c
	same.Lambda = e.Config().Lambda
	if d := configDiff(e.Config(), same); d != "" {
		return nil, fmt.Errorf("the kernelized solver (package solver/kernel) cannot change its configuration mid-run but for Lambda (%s): start a new run", d)
	}
	var buf bytes.Buffer
	if err := e.Save(&buf); err != nil {
		return nil, err
	}
	s, err := kernel.Load(&buf, e.Problem(), kernelTest(e.test), kernel.WithCache(kernelCache))
	if err != nil {
		return nil, err
	}
	if err := s.SetLambda(withDefaults(c).(kernel.Config).Lambda); err != nil {
		return nil, err
	}
	return kernelEngine{s, e.test}, nil
}

// factorGraph returns what the soft solver trains on: the factor-graph
// model of the training problem (data of a factor-graph view, such as
// yeast or a MULAN file) and the test set predicted as Meshi et al. do, by
// the LP relaxation and a rounding (factorgraph.Rounded; nil without test
// data).
func (d *Data) factorGraph() (*factorgraph.Model, oracles.Problem, error) {
	type view interface{ Model() *factorgraph.Model }
	tr, ok := d.Train.(view)
	if !ok {
		return nil, nil, fmt.Errorf("the soft solver trains on factor-graph data (yeast, a MULAN ARFF file); %s is %s", d.Name, problemKind(d.Train))
	}
	if d.Test == nil {
		return tr.Model(), nil, nil
	}
	te, ok := d.Test.(view)
	if !ok {
		return nil, nil, fmt.Errorf("the soft solver needs factor-graph test data; the test set of %s is %s", d.Name, problemKind(d.Test))
	}
	d.roundedOnce.Do(func() { d.rounded, d.roundedErr = factorgraph.NewRounded(te.Model()) })
	if d.roundedErr != nil {
		return nil, nil, d.roundedErr
	}
	return tr.Model(), d.rounded, nil
}

// multiclass returns what the kernelized solver trains on: multiclass
// problems (usps, svmlight or csv data).
func (d *Data) multiclass() (train, test *oracles.Multiclass, err error) {
	train, ok := d.Train.(*oracles.Multiclass)
	if !ok {
		return nil, nil, fmt.Errorf("the kernelized solver trains on multiclass data (usps, svmlight, csv); %s is %s", d.Name, problemKind(d.Train))
	}
	if d.Test == nil {
		return train, nil, nil
	}
	if test, ok = d.Test.(*oracles.Multiclass); !ok {
		return nil, nil, fmt.Errorf("the kernelized solver needs multiclass test data; the test set of %s is %s", d.Name, problemKind(d.Test))
	}
	return train, test, nil
}

// problemKind names the type of a problem for messages ("a
// *oracles.Chain").
func problemKind(p oracles.Problem) string {
	if p == nil {
		return "missing"
	}
	return "a " + reflect.TypeOf(p).String()
}

func (e bcfwEngine) unwrap() run.Solver   { return e.Solver }
func (e softEngine) unwrap() run.Solver   { return e.Solver }
func (e kernelEngine) unwrap() run.Solver { return e.Solver }
