package ssvmnb

import (
	"errors"
	"fmt"
	"os"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Fork returns a new trainer called name that warm-starts from the current
// state of t with the configuration change makes of t's (switch the
// sampling, the cache, the gap schedule, decrease lambda, turn averaging
// on, go from pairwise or away to Frank-Wolfe steps; see solver.Fork for
// what may change). t goes on unchanged. The fork's trace holds t's history
// and a point at the fork whose event says what changed; progress figures
// draw it as a mark.
//
// When t lives in the session, so does the fork. If the session already
// holds a trainer called name that was forked from t at the same pass with
// the same configuration (the cell ran before), Fork returns that stored
// fork, as Session returns a stored run, and says so; any other trainer of
// that name is an error.
func (t *Trainer) Fork(name string, change func(*solver.Config)) (*Trainer, error) {
	cfg := t.s.Config()
	if change != nil {
		change(&cfg)
	}
	origin := fmt.Sprintf("%s at pass %.4g", t.Name, t.s.Passes())
	var path string
	if t.store != "" {
		var err error
		if path, err = sessionFile(name); err != nil {
			return nil, err
		}
		if _, err := os.Stat(path); err == nil {
			return t.storedFork(name, path, origin, cfg)
		}
	} else if name == t.Name {
		return nil, fmt.Errorf("ssvmnb: fork %q needs a name of its own", name)
	}
	s, err := t.s.Fork(cfg, solver.WithTest(t.test))
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: fork %q of %s: %w", name, origin, err)
	}
	f := &Trainer{Name: name, Live: t.Live, LiveEvery: t.LiveEvery, s: s, test: t.test,
		store: path, data: t.data, initial: s.Config(), origin: origin}
	return f, f.save()
}

// MustFork is Fork that panics on error (for notebook cells).
func (t *Trainer) MustFork(name string, change func(*solver.Config)) *Trainer {
	return Must(t.Fork(name, change))
}

// storedFork returns the stored trainer name when it is the fork of t at
// origin with configuration cfg.
func (t *Trainer) storedFork(name, path, origin string, cfg solver.Config) (*Trainer, error) {
	if name == t.Name {
		return nil, fmt.Errorf("ssvmnb: fork %q needs a name of its own (use Change to switch a knob of %q itself)", name, name)
	}
	f, err := readSession(name, path, &Data{Train: t.s.Problem(), Test: t.test})
	if err != nil {
		return nil, err
	}
	want := cfg
	if want.Lambda == 0 {
		want.Lambda = t.s.Lambda()
	}
	if f.origin != origin || configDiff(f.initial, want) != "" {
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
// configuration and t continues from its current state with the new one
// (as a Fork under the same name would). The change is recorded in the
// trace at the current pass and drawn as a mark; the session is saved.
// A later Session call with the original configuration is then an error
// that says what changed: use Resume.
func (t *Trainer) Change(change func(*solver.Config)) error {
	if change == nil {
		return errors.New("ssvmnb: Change needs a function that edits the configuration")
	}
	cfg := t.s.Config()
	change(&cfg)
	s, err := t.s.Fork(cfg, solver.WithTest(t.test))
	if err != nil {
		return fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	t.s, t.carry = s, 0
	return t.save()
}

// SetLambda decreases lambda mid-run (Osokin et al. 2016, Proposition 1;
// see solver.Solver.SetLambda), recorded in the trace at the current pass,
// and saves the session.
func (t *Trainer) SetLambda(lambda float64) error {
	return t.Change(func(c *solver.Config) { c.Lambda = lambda })
}

// configLabel summarizes a configuration for messages and legends.
func configLabel(c solver.Config) string {
	c = c.WithDefaults()
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
}
