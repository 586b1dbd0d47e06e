package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// trainer is what train needs of a solver of the family.
type trainer interface {
	solverrun.Solver
	Weights() []float64
}

// trainWiring is what train connects a solver to.
type trainWiring struct {
	test      oracles.Problem // nil: no test loss
	trainLoss bool
	workers   int
	progress  func(solverrun.Point)
}

// newTrainer builds the solver that --solver names for the training
// problem: the example-level solver (bcfw, fw, ssg), BCFW on the LP
// relaxation of a factor-graph model (lp-hard: Meshi et al. 2015's
// baseline) or the soft-constraint solver (soft). On factor-graph data,
// lp-hard and soft record the test loss of LP-plus-rounding predictions
// (factorgraph.Rounded), as Meshi et al. predict. It returns the solver
// and a line describing it.
func newTrainer(sf *solverFlags, train oracles.Problem, wire trainWiring) (trainer, string, error) {
	return buildTrainer(sf, train, wire, nil)
}

// loadTrainer is newTrainer for a run continued from the solver state
// that state holds (fwstruct train --resume); the configuration is the
// checkpoint's.
func loadTrainer(sf *solverFlags, state io.Reader, train oracles.Problem, wire trainWiring) (trainer, string, error) {
	return buildTrainer(sf, train, wire, state)
}

// buildTrainer builds the solver --solver names, new (state nil) or
// loaded from state.
func buildTrainer(sf *solverFlags, train oracles.Problem, wire trainWiring, state io.Reader) (trainer, string, error) {
	if sf.algorithm != "soft" && sf.algorithm != "lp-hard" {
		opts := []solver.Option{solver.WithTrainLoss(wire.trainLoss), solver.WithWorkers(wire.workers), solver.WithProgress(wire.progress), solver.WithTest(wire.test),
			solver.WithLateLosses(true)} // the progress callback prints the point only
		var s *solver.Solver
		var err error
		if state != nil {
			s, err = solver.Load(state, train, opts...)
		} else {
			var cfg solver.Config
			if cfg, err = sf.config(train.Dim()); err != nil {
				return nil, "", err
			}
			s, err = solver.New(train, cfg, opts...)
		}
		if err != nil {
			return nil, "", err
		}
		cfg := s.Config()
		return s, fmt.Sprintf("solver %s (sampling %s, %s steps, cache %v%s%s), lambda = %g", cfg.Algorithm, cfg.Sampling, cfg.Step, cfg.Cache.Enabled, describeMultiPlane(cfg.MultiPlane), describeExecution(cfg), cfg.Lambda), nil
	}
	m, err := factorModel(train)
	if err != nil {
		return nil, "", err
	}
	if wire.test != nil {
		tm, err := factorModel(wire.test)
		if err != nil {
			return nil, "", err
		}
		if wire.test, err = factorgraph.NewRounded(tm); err != nil {
			return nil, "", err
		}
	}
	if sf.algorithm == "lp-hard" {
		rel, err := factorgraph.NewRelaxed(m, 2)
		if err != nil {
			return nil, "", err
		}
		sf.algorithm, sf.lpHard = "bcfw", true
		defer func() { sf.algorithm, sf.lpHard = "lp-hard", false }()
		s, line, err := buildTrainer(sf, rel, wire, state)
		return s, "LP-hard: " + line + ", over the local polytope (LP oracle), test by LP + rounding", err
	}
	if wire.trainLoss {
		return nil, "", errors.New("--train-loss is not available with --solver soft")
	}
	opts := []soft.Option{soft.WithWorkers(wire.workers), soft.WithProgress(wire.progress), soft.WithTest(wire.test)}
	var s *soft.Solver
	if state != nil {
		if s, err = soft.Load(state, m, opts...); err != nil {
			return nil, "", err
		}
	} else {
		cfg, err := sf.softConfig()
		if err != nil {
			return nil, "", err
		}
		if s, err = soft.New(m, cfg, opts...); err != nil {
			return nil, "", err
		}
	}
	cfg := s.Config()
	return s, fmt.Sprintf("solver soft (Meshi et al. 2015, %d blocks a pass, sampling %s), lambda = %g, rho = %g, test by LP + rounding", s.Blocks(), cfg.Sampling, cfg.Lambda, cfg.Rho), nil
}

// factorModel returns the factor-graph model behind a problem of package
// factorgraph (the yeast and MULAN data).
func factorModel(p oracles.Problem) (*factorgraph.Model, error) {
	if v, ok := p.(interface{ Model() *factorgraph.Model }); ok {
		return v.Model(), nil
	}
	return nil, errors.New("--solver soft and lp-hard need factor-graph data (yeast or a MULAN dataset)")
}

// softConfig returns the soft solver's configuration; the flags of the
// example-level solver that it has no use for are refused.
func (f *solverFlags) softConfig() (soft.Config, error) {
	for _, name := range []string{"preset", "step", "step-size", "averaging", "average", "cache", "box-lower", "box-upper"} {
		if f.given(name) {
			return soft.Config{}, errors.New("--solver soft takes none of --preset, --step, --step-size, --averaging, --average, --cache, --box-lower, --box-upper")
		}
	}
	var samp solverrun.Sampling // uniform unless --sampling says otherwise
	if f.sampling != "" {
		var err error
		if samp, err = solverrun.ParseSampling(f.sampling); err != nil {
			return soft.Config{}, fmt.Errorf("--sampling: %w", err)
		}
	}
	cfg := soft.Config{Lambda: f.lambda, Rho: f.rho, Sampling: samp, GapEvery: f.gapEvery, TraceEvery: f.traceEvery, Seed: f.seed}
	return cfg, cfg.WithDefaults().Validate()
}

// averageWeights returns the weighted-average weights of the example-level
// solver (nil for the others or without averaging).
func averageWeights(s trainer) []float64 {
	if bs, ok := s.(*solver.Solver); ok {
		return bs.AverageWeights()
	}
	return nil
}

// printMetrics prints the task loss of the weights on p and, when p has
// task metrics (oracles.Evaluator: Hamming loss and example-based F1 for
// multi-label data), every metric. On factor-graph data it also prints
// those of LP-plus-rounding prediction (Meshi et al. 2015, Sec. 6), and
// labels each block with its prediction ("exact MAP", "LP + rounding").
func printMetrics(w io.Writer, set, desc string, p oracles.Problem, weights []float64) {
	show := func(head string, q oracles.Problem) {
		loss, ms := soft.Metrics(q, weights, 0)
		fmt.Fprintf(w, "%s loss %.6f (%s)\n", set, loss, head)
		for _, m := range ms {
			fmt.Fprintf(w, "  %-16s %.6f\n", m.Name, m.Value)
		}
	}
	head := fmt.Sprintf("%s, %d examples%s", desc, p.Len(), unseenNote(p))
	if _, ok := p.(*factorgraph.Exact); ok {
		m, _ := factorModel(p)
		if r, err := factorgraph.NewRounded(m); err == nil {
			show("exact MAP, "+head, p)
			show("LP + rounding, "+head, r)
			return
		}
	}
	show(head, p)
}
