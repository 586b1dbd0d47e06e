package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
)

// execFlags are the flags of the execution of a run: --workers, and the
// executions of the block steps a method takes (execKinds). Without an
// execution named, train takes the one auto chooses (auto.Execution).
type execFlags struct {
	workers    int
	batch      int
	lookahead  int
	async      bool
	simWorkers int
	simDelays  string

	// x is the execution the flags give (nil: sequential), once checked.
	x run.Execution
}

// declare declares the execution flags a method of kinds takes, their
// defaults those of the execution from (the checkpoint's, or nil).
func (e *execFlags) declare(f *flagSet, kinds execKinds, from run.Execution) {
	switch x := from.(type) {
	case execution.MiniBatch:
		e.batch, e.lookahead = x.Batch, x.Lookahead
	case execution.Async:
		e.async = true
	case execution.Simulated:
		e.simWorkers = x.Workers
		if x.Delays != nil {
			e.simDelays = formatWeights(x.Delays.Weights)
		}
	}
	f.Int(&e.workers, "workers", "goroutines of the parallel parts of the run (0: one per CPU): gap passes, evaluations, batch iterations,\n"+
		"the read parts of an execution's steps, a kernel method's rows; a trace point's test losses are computed while the next\n"+
		"steps go on. The iterates do not depend on it unless no execution is named and the oracle is costly: a method with\n"+
		"a mini-batch execution then takes one of a block per worker (the execution line says why; --batch 1: sequential steps)")
	if kinds >= miniBatchOnly {
		f.Int(&e.batch, "batch", "mini-batch execution: tau distinct blocks per step, their oracle calls in parallel against one w\n"+
			"(Wang et al. 2016; 0 or 1: sequential steps); the run depends on tau, not on --workers")
		f.Int(&e.lookahead, "lookahead", "mini-batch execution: the batches (of --batch blocks, or one) drawn ahead of the one being applied, their\n"+
			"read parts computed on the workers meanwhile (answers at most (L+1) tau - 1 steps old; 0: the synchronous mini-batch)")
	}
	if kinds == anyExecution {
		f.Bool(&e.async, "async", "asynchronous execution: the workers solve oracles on possibly stale copies of w, one updater applies the\n"+
			"block steps as the answers arrive (Wang et al. 2016); not reproducible bit for bit")
		f.Int(&e.simWorkers, "simulate-workers", "the delay simulator: the steps run sequentially with the staleness K asynchronous workers would have\n"+
			"(every answer applied K-1 steps after the iterate it saw), to measure passes-to-gap at K workers on any machine (0: off)")
		f.String(&e.simDelays, "simulate-delays", "with --simulate-workers: the weights w0,w1,... of the delays of the answers (the list a mini-batch,\n"+
			"--async or simulated run prints after its summary), instead of K-1 for every answer")
	}
	f.check(e.build)
}

// build checks the flags and sets e.x.
func (e *execFlags) build() error {
	if err := checkFlags(
		flagCheck{"workers", ">= 0 (0: one per CPU)", float64(e.workers), e.workers >= 0},
		flagCheck{"batch", ">= 0", float64(e.batch), e.batch >= 0},
		flagCheck{"lookahead", ">= 0 (0: the synchronous mini-batch)", float64(e.lookahead), e.lookahead >= 0},
		flagCheck{"simulate-workers", ">= 0 (0: off)", float64(e.simWorkers), e.simWorkers >= 0},
	); err != nil {
		return err
	}
	var chosen []string
	e.x = nil
	if e.batch > 1 || e.lookahead > 0 {
		chosen = append(chosen, "--batch")
		e.x = execution.MiniBatch{Batch: max(e.batch, 1), Lookahead: e.lookahead}
	}
	if e.async {
		chosen = append(chosen, "--async")
		e.x = execution.Async{}
	}
	if e.simWorkers > 0 {
		chosen = append(chosen, "--simulate-workers")
		sim := execution.Simulated{Workers: e.simWorkers}
		if e.simDelays != "" {
			w, err := parseWeights(e.simDelays)
			if err != nil {
				return fmt.Errorf("--simulate-delays: %w", err)
			}
			sim.Delays = &execution.Delays{Weights: w}
		}
		e.x = sim
	} else if e.simDelays != "" {
		return fmt.Errorf("--simulate-delays needs --simulate-workers")
	}
	if len(chosen) > 1 {
		return fmt.Errorf("%s are %d executions of the steps: choose one", orList(chosen), len(chosen))
	}
	if err := execution.Validate(e.x); err != nil {
		return fmt.Errorf("%s: %w", chosen[0], err)
	}
	return nil
}

// named reports whether the command line names an execution of the steps
// (--batch, --lookahead, --async or --simulate-workers, --batch 1 for the
// sequential steps); without one the run takes the execution auto would
// choose for its method (auto.Execution).
func (e *execFlags) named(f *flagSet) bool {
	for _, name := range []string{"batch", "lookahead", "async", "simulate-workers"} {
		if f.given(name) {
			return true
		}
	}
	return false
}

// flag names the flag that chose the execution (for the errors of a method
// that cannot be run by it), "" for the sequential one.
func (e *execFlags) flag() string {
	switch e.x.(type) {
	case execution.MiniBatch:
		return "--batch"
	case execution.Async:
		return "--async"
	case execution.Simulated:
		return "--simulate-workers"
	}
	return ""
}

// parseWeights reads --simulate-delays: comma-separated weights w0,w1,...
// of the delays 0, 1, ...
func parseWeights(list string) ([]float64, error) {
	var out []float64
	var sum float64
	for k, field := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("weight %d is %s; want comma-separated weights >= 0 of the delays 0, 1, 2, ... (e.g. 0,97,3)", k, quote(field))
		}
		out = append(out, v)
		sum += v
	}
	if !(sum > 0) {
		return nil, errors.New("the weights must have a positive sum")
	}
	return out, nil
}

// formatWeights writes weights as parseWeights reads them.
func formatWeights(w []float64) string {
	s := make([]string, len(w))
	for d, v := range w {
		s[d] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strings.Join(s, ",")
}

// describeExecution names an execution for the method line.
func describeExecution(x run.Execution) string {
	if x == nil {
		return "sequential"
	}
	return x.Describe()
}

// printStats prints the figures of a run its family alone has: how stale
// the steps of a mini-batch, an asynchronous run or the delay simulator
// were (solver.Solver.Delays), in the form --simulate-delays takes, so that
// the simulator can replay a real run's staleness at other worker counts;
// the support vectors and the kernel cache of a kernel run.
func printStats(w io.Writer, s run.Solver) {
	switch s := s.(type) {
	case *solver.Solver:
		if dd := s.Delays(); dd != nil {
			fmt.Fprintf(w, "steps applied %.3g steps after the iterate they read, on average (--simulate-delays %s)\n", dd.Mean(), formatWeights(dd.Weights))
		}
	case *kernel.Solver:
		hits, misses, _ := s.CacheStats()
		fmt.Fprintf(w, "%d support vectors, kernel cache hit rate %s\n", s.SupportVectors(), fmtFloat(float64(hits)/float64(hits+misses)))
	}
}
