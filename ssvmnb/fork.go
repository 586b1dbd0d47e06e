package ssvmnb

import (
	"errors"
	"fmt"
	"os"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// Fork returns a new trainer called name that warm-starts from the current
// state of t with the configuration change makes of t's: change is nil
// (the same configuration: the run continued under another name) or a
// function that edits the configuration of t's family, func(*solver.Config),
// func(*soft.Config) or func(*kernel.Config). For the runs of package
// solver it may switch the sampling, the cache, the gap schedule, lambda,
// averaging, multi-plane BCFW, or go from pairwise or away to Frank-Wolfe
// steps (see solver.Solver.Fork); the soft and kernelized solvers have no
// warm start under another configuration and say so. t goes on unchanged.
// The fork's trace holds t's history and a point at the fork whose event
// says what changed; progress figures draw it as a mark. The fork runs
// with t's Workers.
//
// When t lives in the session, so does the fork. If the session already
// holds a trainer called name that was forked from t at the same pass with
// the same configuration (the cell ran before), Fork returns that stored
// fork, as Session returns a stored run, and says so; any other trainer of
// that name is an error.
func (t *Trainer) Fork(name string, change any) (*Trainer, error) {
	cfg, err := changed(t.Config(), change)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: fork %q of %s: %w", name, t.Name, err)
	}
	origin := fmt.Sprintf("%s at pass %.4g", t.Name, t.Passes())
	var path string
	if t.store != "" {
		if path, err = sessionFile(name); err != nil {
			return nil, err
		}
		if _, err := os.Stat(path); err == nil {
			return t.storedFork(name, path, origin, cfg)
		}
	} else if name == t.Name {
		return nil, fmt.Errorf("ssvmnb: fork %q needs a name of its own", name)
	}
	e, err := t.eng.fork(cfg)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: fork %q of %s: %w", name, origin, err)
	}
	f := &Trainer{Name: name, Live: t.Live, LiveEvery: t.LiveEvery, Workers: t.Workers, eng: e, on: t.on,
		store: path, data: t.data, initial: e.config(), origin: origin, clock: t.clock.copy()}
	if err := f.applyWorkers(); err != nil {
		return nil, err
	}
	return f, f.save()
}

// MustFork is Fork that panics on error (for notebook cells).
func (t *Trainer) MustFork(name string, change any) *Trainer {
	return Must(t.Fork(name, change))
}

// changed applies change (nil or a func editing cfg's type) to a copy of
// cfg.
func changed(cfg, change any) (any, error) {
	if change == nil {
		return cfg, nil
	}
	switch c := cfg.(type) {
	case solver.Config:
		if fn, ok := change.(func(*solver.Config)); ok {
			fn(&c)
			return c, nil
		}
	case soft.Config:
		if fn, ok := change.(func(*soft.Config)); ok {
			fn(&c)
			return c, nil
		}
	case kernel.Config:
		if fn, ok := change.(func(*kernel.Config)); ok {
			fn(&c)
			return c, nil
		}
	}
	return nil, fmt.Errorf("the run's configuration is a %T, so a change is a func(*%T), not a %T", cfg, cfg, change)
}

// storedFork returns the stored trainer name when it is the fork of t at
// origin with configuration cfg.
func (t *Trainer) storedFork(name, path, origin string, cfg any) (*Trainer, error) {
	if name == t.Name {
		return nil, fmt.Errorf("ssvmnb: fork %q needs a name of its own (use Change to switch a knob of %q itself)", name, name)
	}
	f, err := readSession(name, path, t.on)
	if err != nil {
		return nil, err
	}
	if f.origin != origin || configDiff(f.initial, cfg) != "" {
		what := "a run of its own"
		if f.origin != "" {
			what = "forked from " + f.origin
		}
		return nil, fmt.Errorf("ssvmnb: session %q exists (%s, with %s) and is not this fork of %s: Forget(%q) or pick another name",
			name, what, configLabel(f.initial), origin, name)
	}
	note(fmt.Sprintf("%s: resuming the stored fork of %s, now at pass %.4g", name, origin, f.Passes()))
	return f, nil
}

// Change switches knobs of t itself mid-run: change edits the current
// configuration (a func(*solver.Config), func(*soft.Config) or
// func(*kernel.Config), t's family's) and t continues from its current
// state with the new one (as a Fork under the same name would; the soft
// and kernelized solvers can change only Lambda mid-run and say so
// otherwise). The change is recorded in the trace at the current pass and
// drawn as a mark; the session is saved. A later Session call with the
// original configuration is then an error that says what changed: use
// Resume.
func (t *Trainer) Change(change any) error {
	if change == nil {
		return errors.New("ssvmnb: Change needs a function that edits the configuration")
	}
	cfg, err := changed(t.Config(), change)
	if err != nil {
		return fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	e, err := t.eng.fork(cfg)
	if err != nil {
		return fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	t.eng, t.carry, t.applied = e, 0, 0
	if err := t.applyWorkers(); err != nil {
		return err
	}
	return t.save()
}

// SetLambda changes lambda mid-run, in either direction, recorded in the
// trace at the current pass, and saves the session. For the runs of
// package solver see solver.Solver.SetLambda: a decrease keeps w (Osokin
// et al. 2016, Proposition 1), an increase keeps the dual variables (w =
// A alpha / lambda rescales; BCFW then makes an exact gap pass). The soft
// and kernelized solvers keep their dual variables in both directions and
// make an exact gap pass at the new lambda (soft.Solver.SetLambda,
// kernel.Solver.SetLambda).
func (t *Trainer) SetLambda(lambda float64) error {
	switch t.eng.family() {
	case familySoft:
		return t.Change(func(c *soft.Config) { c.Lambda = lambda })
	case familyKernel:
		return t.Change(func(c *kernel.Config) { c.Lambda = lambda })
	}
	return t.Change(func(c *solver.Config) { c.Lambda = lambda })
}

// configLabel summarizes a configuration for messages and legends.
func configLabel(cfg any) string {
	switch c := withDefaults(cfg).(type) {
	case solver.Config:
		s := fmt.Sprintf("%v, lambda %g, %v sampling, %v steps, cache %s, gap every %g", c.Algorithm, c.Lambda, c.Sampling, c.Step, cacheLabel(c.Cache), c.GapEvery)
		if mp := c.MultiPlane; mp.Enabled {
			s += ", multi-plane " + mp.String()
		}
		if c.Averaging {
			s += ", averaging"
			if c.AverageKind != run.WeightedAverage {
				s += " " + c.AverageKind.String()
			}
		}
		return s
	case soft.Config:
		return fmt.Sprintf("soft, lambda %g, rho %g, %v sampling, gap every %g", c.Lambda, c.Rho, c.Sampling, c.GapEvery)
	case kernel.Config:
		return fmt.Sprintf("kernel %v, %v, lambda %g, %v sampling, gap every %g", c.Kernel, c.Algorithm, c.Lambda, c.Sampling, c.GapEvery)
	}
	return fmt.Sprint(cfg)
}
