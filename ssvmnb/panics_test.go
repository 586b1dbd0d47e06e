package ssvmnb

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/solver/run"
)

// panicking is a user's problem whose method what panics, from its call
// number after on (counted over all its methods).
type panicking struct {
	oracles.Problem
	what  string
	after int64
	calls atomic.Int64 // the oracle passes call it from the workers
}

func (p *panicking) hit(what string) {
	if p.what == what && p.calls.Add(1) > p.after {
		panic(what + " of a broken problem")
	}
}

func (p *panicking) Len() int { p.hit("Len"); return p.Problem.Len() }
func (p *panicking) Dim() int { p.hit("Dim"); return p.Problem.Dim() }
func (p *panicking) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	p.hit("MaxOracle")
	return p.Problem.MaxOracle(i, w, dst)
}
func (p *panicking) Psi(i int, y []int32, dst *oracles.SparseVec) {
	p.hit("Psi")
	p.Problem.Psi(i, y, dst)
}
func (p *panicking) Loss(i int, y []int32) float64 { p.hit("Loss"); return p.Problem.Loss(i, y) }

// TestNoRawPanics: a user's problem that panics (in Len, Dim, its oracle,
// psi or loss, at once or in the middle of a run) and a typed-nil method
// given to New, Session, Fork or Change are errors of those calls, never
// panics (issue 35 item 13).
func TestNoRawPanics(t *testing.T) {
	isolated(t)
	tr, te := synthetic(t)
	noPanic := func(what string, call func() error) {
		t.Helper()
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s panicked: %v", what, r)
			}
		}()
		if err := call(); err == nil {
			t.Errorf("%s: no error", what)
		}
	}
	methods := []run.Method{solver.BCFW{Lambda: 0.01, GapEvery: 2}, auto.Method{Lambda: 0.01}}
	for _, what := range []string{"Len", "Dim", "MaxOracle", "Psi", "Loss"} {
		afters := []int64{0, 500} // at once; in the run's 9th pass (60 words)
		if what == "Len" || what == "Dim" {
			afters = afters[:1]
		}
		for _, after := range afters {
			for _, m := range methods {
				name := what + "/" + m.Name()
				noPanic(name+": New and Run", func() error {
					p := &panicking{Problem: tr, what: what, after: after}
					x, err := New("x", NewData("broken", p, te), m)
					if err != nil {
						return err
					}
					_, err = x.Run(20)
					return err
				})
				noPanic(name+": Session and Run", func() error {
					p := &panicking{Problem: tr, what: what, after: after}
					Check(Forget("s"))
					x, err := Session("s", NewData("broken", p, te), m)
					if err != nil {
						return err
					}
					_, err = x.Run(20)
					return err
				})
			}
		}
	}
	// solver.Recommended(0) (issue 34 item 9: it panicked) is an error of
	// New naming lambda.
	noPanic("New with Recommended(0)", func() error {
		_, err := New("r", NewData("synthetic", tr, te), solver.Recommended(0))
		if err != nil && !strings.Contains(err.Error(), "lambda must be a positive") {
			t.Errorf("Recommended(0): %v", err)
		}
		return err
	})
	good := Must(Session("good", NewData("synthetic", tr, te), solver.BCFW{Lambda: 0.01}))
	var nilBCFW *solver.BCFW
	var nilAuto *auto.Method
	for _, m := range []run.Method{nilBCFW, nilAuto} {
		noPanic("New with a typed nil", func() error { _, err := New("n", NewData("synthetic", tr, te), m); return err })
		noPanic("Session with a typed nil", func() error { _, err := Session("n", NewData("synthetic", tr, te), m); return err })
		noPanic("Fork with a typed nil", func() error { _, err := good.Fork("f", m); return err })
		noPanic("Change with a typed nil", func() error { return good.Change(m) })
	}
}
