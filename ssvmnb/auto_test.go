package ssvmnb

import (
	"testing"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestAutoSession: auto, the default method, trains what it chooses for
// the data (exact steps on multiclass data), and a session resumes the run
// from the same cell (the cell's method is auto, the run's exact).
func TestAutoSession(t *testing.T) {
	SessionDir = t.TempDir()
	data := NewData("blobs", oraclestest.Multiclass(40, 3, 4, 1), oraclestest.Multiclass(20, 3, 4, 2))
	a, err := Session("auto", data, auto.Method{Lambda: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Method().Name(); got != "exact" {
		t.Fatalf("auto trains %s on multiclass data, want exact", got)
	}
	if _, err := a.Run(3); err != nil {
		t.Fatal(err)
	}
	b, err := Session("auto", data, auto.Method{Lambda: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if b.Passes() != a.Passes() || !run.Same(b.Method(), a.Method()) {
		t.Fatalf("resumed at %v passes with %s, stored %v with %s", b.Passes(), b.Method().Name(), a.Passes(), a.Method().Name())
	}
}
