package ssvmnb

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Fork returns a new trainer called name that warm-starts from the current
// state of t under method m: nil continues t's method (the run continued
// under another name), a method whose Lambda is zero continues at t's
// lambda. What may change is the solver's (run.Solver.Fork): for the runs
// of package solver the sampling, the cache, the gap schedule, lambda,
// averaging, or from BCFW to multi-plane BCFW and back, from pairwise or
// away to Frank-Wolfe steps (solver.Solver.Fork); the soft solver changes
// only lambda and rho, the kernelized ones only lambda, and they say so
// otherwise. t goes on unchanged.
// The fork's trace holds t's history and a point at the fork whose event
// says what changed; progress figures draw it as a mark. The fork runs
// with t's Workers and execution.
//
// When t lives in the session, so does the fork. If the session already
// holds a trainer called name that was forked from t at the same pass with
// the same method (the cell ran before), Fork returns that stored fork, as
// Session returns a stored run, and says so; any other trainer of that
// name is an error.
func (t *Trainer) Fork(name string, m run.Method) (*Trainer, error) {
	if typedNil(m) {
		return nil, fmt.Errorf("ssvmnb: fork %q of %s: no method%s (nil continues the run's)", name, t.Name, nilText(m))
	}
	if m == nil {
		m = t.current()
	}
	m = recordable(orLambda(m, t.s.Lambda()))
	origin := fmt.Sprintf("%s at pass %.4g", t.Name, t.Passes())
	var path string
	if t.store != "" {
		var err error
		if path, err = sessionFile(name); err != nil {
			return nil, err
		}
		if err := hold(name, path); err != nil {
			return nil, err
		}
		if _, err := os.Stat(path); err == nil {
			return t.storedFork(name, path, origin, m)
		}
	} else if name == t.Name {
		return nil, fmt.Errorf("ssvmnb: fork %q needs a name of its own", name)
	}
	s, err := t.s.Fork(m)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: fork %q of %s: %w", name, origin, err)
	}
	f := &Trainer{Name: name, Live: t.Live, LiveEvery: t.LiveEvery, Workers: t.Workers, s: s, on: t.on,
		store: path, data: t.data, asked: m, started: m, origin: origin, clock: t.clock.copy(), changed: slices.Clone(t.changed)}
	if err := f.applyWorkers(); err != nil {
		return nil, err
	}
	return f, f.save()
}

// storedFork returns the stored trainer name when it is the fork of t at
// origin under method m.
func (t *Trainer) storedFork(name, path, origin string, m run.Method) (*Trainer, error) {
	if name == t.Name {
		return nil, fmt.Errorf("ssvmnb: fork %q needs a name of its own (use Change to switch a knob of %q itself)", name, name)
	}
	tf, err := readSession(name, path)
	if err != nil {
		return nil, err
	}
	f, err := openSession(name, path, tf, t.on)
	if err != nil {
		return nil, err
	}
	if f.origin != origin || methodDiff(f.started, f.started, m) != "" {
		what := "a run of its own"
		if f.origin != "" {
			what = "forked from " + f.origin
		}
		return nil, fmt.Errorf("ssvmnb: session %q exists (%s, with %s) and is not this fork of %s: Forget(%q) or pick another name",
			name, what, methodLabel(f.started), origin, name)
	}
	note(fmt.Sprintf("%s: resuming the stored fork of %s, now at pass %.4g", name, origin, f.Passes()))
	return f, nil
}

// Change switches t itself to method m mid-run (a method whose Lambda is
// zero keeps t's lambda): t continues from its current state under m, as
// a Fork under the same name would (the soft solver can change only lambda
// and rho mid-run, the kernelized ones only lambda, and they say so
// otherwise). The change is recorded
// in the trace at the current pass and drawn as a mark; the session is
// saved. A later Session call with the original method is then an error
// that says what changed: use Resume.
func (t *Trainer) Change(m run.Method) error {
	if m == nil || typedNil(m) {
		return fmt.Errorf("ssvmnb: %s: Change needs a method%s", t.Name, nilText(m))
	}
	m = recordable(orLambda(m, t.s.Lambda()))
	before := len(t.s.Trace())
	s, err := t.s.Fork(m)
	if err != nil {
		return fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	if tr := s.Trace(); len(tr) > before && strings.HasPrefix(tr[len(tr)-1].Event, forkEvent) {
		t.changed = append(t.changed, len(tr)-1) // a change of this run, not a fork
	}
	t.s, t.asked, t.carry, t.applied = s, m, 0, 0
	if err := t.applyWorkers(); err != nil {
		return err
	}
	return t.save()
}

// SetLambda changes lambda mid-run, in either direction, recorded in the
// trace at the current pass, and saves the session: Change to the run's
// method at lambda.
// For the runs of package solver see solver.Solver.SetLambda: a decrease
// keeps w (Osokin et al. 2016, Proposition 1), an increase keeps the dual
// variables (w = A alpha / lambda rescales; BCFW then makes an exact gap
// pass). The soft and kernelized solvers keep their dual variables in both
// directions and make an exact gap pass at the new lambda
// (soft.Solver.SetLambda, kernel.Solver.SetLambda).
func (t *Trainer) SetLambda(lambda float64) error {
	if lambda == 0 { // Change would read it as "the run's lambda"
		return fmt.Errorf("ssvmnb: %s: lambda must be positive, got 0", t.Name)
	}
	return t.Change(t.current().WithLambda(lambda))
}
