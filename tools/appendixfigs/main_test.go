package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb/papers"
)

func TestParseLambda(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{{"1/n", 0, true}, {"0.01", 0.01, true}, {"0", 0, false}, {"-1", 0, false}, {"x", 0, false}} {
		got, err := parseLambda(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseLambda(%q) = %v, %v", c.in, got, err)
		}
	}
}

// panelOf builds a panel whose methods have one run each with the given
// primal values at passes 1, 2, ...
func panelOf(curves map[string][]float64) *papers.Figure1Panel {
	p := &papers.Figure1Panel{Lambda: 0.1}
	for _, name := range []string{"BCFW", "BCFW-wavg", "BCFW-tavg", "SSG", "SSG-wavg", "SSG-tavg", "SSG-avg", "online-EG"} {
		var tr []run.Point
		for k, v := range curves[name] {
			pt := run.Blank()
			pt.Pass, pt.Primal = float64(k+1), v
			tr = append(tr, pt)
		}
		p.Methods = append(p.Methods, papers.Figure1Method{Name: name, Traces: [][]run.Point{tr}})
	}
	return p
}

// TestFindings: the verdicts follow the curves, both ways.
func TestFindings(t *testing.T) {
	paperLike := panelOf(map[string][]float64{
		"BCFW": {4, 3, 2}, "BCFW-wavg": {3, 2, 1.5}, "BCFW-tavg": {2.5, 2.8, 1}, "SSG": {8, 6, 5},
		"SSG-wavg": {7, 5, 4}, "SSG-tavg": {7, 5, 4}, "SSG-avg": {9, 8, 7}, "online-EG": {50, 40, 30},
	})
	var out bytes.Buffer
	printFindings(&out, paperLike, true)
	if strings.Contains(out.String(), "DIFFERS") || strings.Count(out.String(), "holds") != 3 {
		t.Fatalf("paper-like curves:\n%s", out.String())
	}
	unlike := panelOf(map[string][]float64{
		"BCFW": {4, 3, 2}, "BCFW-wavg": {3, 2, 1.5}, "BCFW-tavg": {3.5, 2.5, 1.6}, "SSG": {8, 6, 5},
		"SSG-wavg": {7, 5, 4}, "SSG-tavg": {7, 5, 4}, "SSG-avg": {6, 8, 7}, "online-EG": {1, 1, 1},
	})
	out.Reset()
	printFindings(&out, unlike, true)
	if strings.Count(out.String(), "DIFFERS") != 3 {
		t.Fatalf("unlike curves:\n%s", out.String())
	}
}
