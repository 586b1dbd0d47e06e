package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/figtool"
	"github.com/fwstruct/fwstruct/ssvmnb/papers"
)

// runFigure runs fig3 (OCR-large) or fig4 (CoNLL-2000) at every lambda of
// o and writes its figures, traces, table and findings.
func runFigure(ctx context.Context, name string, o options, w io.Writer) error {
	data, opt, passes := "ocr", datasets.Options{Split: datasets.SplitLarge}, o.passesOCR
	methods := []string{"BCFW", "BCFW-wavg", "BCFW-tavg", "SSG", "SSG-wavg", "SSG-tavg", "SSG-avg", "online-EG"}
	if name == "fig4" {
		data, opt, passes = "conll", datasets.Options{}, o.passesConll
		if !o.conllEG {
			methods = methods[:len(methods)-1]
		}
	}
	d, err := datasets.LoadData(data, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s, n = %d training examples, %d test, d = %d; %d seeds, %g passes\n",
		name, data, d.Train.Len(), d.Test.Len(), d.Train.Dim(), len(o.seeds), passes)
	for _, lambda := range o.lambdas {
		if lambda == 0 {
			lambda = 1 / float64(d.Train.Len())
		}
		start := time.Now()
		panels, err := papers.Figure1(ctx, d.Train, d.Test, papers.Figure1Config{Lambdas: []float64{lambda}, Seeds: o.seeds, Passes: passes, Methods: methods})
		if err != nil {
			return err
		}
		p := &panels[0]
		obj, te := p.Objective(), p.TestError()
		obj.Title = fmt.Sprintf("%s (%s, n = %d): primal suboptimality, lambda = %.3g", name, data, d.Train.Len(), lambda)
		te.Title = fmt.Sprintf("%s (%s): test error, lambda = %.3g", name, data, lambda)
		if err := figtool.WritePanel(o.out, name, p, obj, te, "error", "test_error"); err != nil {
			return err
		}
		figtool.PrintBudgets(w, p, figtool.Budgets([]float64{1, 2, 3, 5, 10, 20, 50, 100}, passes), "test error")
		printFindings(w, p, name == "fig3")
		fmt.Fprintf(w, "  (lambda %.3g computed in %.0f s)\n\n", lambda, time.Since(start).Seconds())
	}
	return nil
}

// curve returns the median over seeds of the suboptimality of method name
// at every point index (the stochastic methods other than online EG are
// evaluated at the same passes in every run), with their passes.
func curve(p *papers.Figure1Panel, name string) (pass, sub []float64, ok bool) {
	for _, m := range p.Methods {
		if m.Name != name {
			continue
		}
		s := p.Suboptimality(m)
		n := len(s[0])
		for _, t := range s {
			n = min(n, len(t))
		}
		for k := 0; k < n; k++ {
			var v []float64
			for _, t := range s {
				v = append(v, t[k].Primal)
			}
			pass, sub = append(pass, s[0][k].Pass), append(sub, figtool.Median(v))
		}
		return pass, sub, true
	}
	return nil, nil, false
}

// rise returns the sum of the increases of log10 v from point to point
// (after the first pass): how much a curve that should fall climbs back.
func rise(pass, v []float64) float64 {
	var r float64
	for k := 1; k < len(v); k++ {
		if pass[k-1] >= 1 && v[k] > 0 && v[k-1] > 0 && v[k] > v[k-1] {
			r += math.Log10(v[k] / v[k-1])
		}
	}
	return r
}

// printFindings checks the qualitative findings of App. F on the medians
// over seeds, from the first pass on, and says plainly where they fail.
func printFindings(w io.Writer, p *papers.Figure1Panel, withEG bool) {
	fmt.Fprintln(w, "findings of App. F, checked on the median curves (points at passes >= 1):")
	pass, tavg, ok1 := curve(p, "BCFW-tavg")
	_, wavg, ok2 := curve(p, "BCFW-wavg")
	if ok1 && ok2 {
		better, total := 0, 0
		for k := range tavg {
			if pass[k] >= 1 && k < len(wavg) {
				total++
				if tavg[k] < wavg[k] {
					better++
				}
			}
		}
		fmt.Fprintf(w, "  BCFW-tavg below BCFW-wavg at %d of %d points (paper: sometimes); climb of log10 suboptimality: tavg %.2f, wavg %.2f (paper: tavg fluctuates more) -> %s\n",
			better, total, rise(pass, tavg), rise(pass, wavg[:len(tavg)]), verdict(better > 0 && rise(pass, tavg) > rise(pass, wavg[:len(tavg)])))
	}
	others := []string{"BCFW", "BCFW-wavg", "BCFW-tavg", "SSG", "SSG-wavg", "SSG-tavg"}
	if pass, avg, ok := curve(p, "SSG-avg"); ok {
		worst, total := 0, 0
		for k := range avg {
			if pass[k] < 1 {
				continue
			}
			total++
			all := true
			for _, o := range others {
				if _, v, ok := curve(p, o); ok && k < len(v) && !(avg[k] > v[k]) {
					all = false
				}
			}
			if all {
				worst++
			}
		}
		fmt.Fprintf(w, "  SSG-avg worst of the stochastic methods (online EG aside) at %d of %d points (paper: always) -> %s\n", worst, total, verdict(worst == total))
	}
	if !withEG {
		return
	}
	for _, m := range p.Methods {
		if m.Name != "online-EG" {
			continue
		}
		sub := p.Suboptimality(m)
		var eg []float64
		for _, t := range sub {
			eg = append(eg, t[len(t)-1].Primal)
		}
		last := figtool.Median(eg)
		worse := 0
		var names []string
		for _, o := range others {
			if _, v, ok := curve(p, o); ok {
				if last > v[len(v)-1] {
					worse++
				}
				names = append(names, fmt.Sprintf("%s %.3g", o, v[len(v)-1]))
			}
		}
		_, bcfw, _ := curve(p, "BCFW")
		fmt.Fprintf(w, "  online-EG at its last point: suboptimality %.3g, %.1fx BCFW's; worse than %d of %d others (%v) (paper: substantially worse) -> %s\n",
			last, last/bcfw[len(bcfw)-1], worse, len(names), names, verdict(worse == len(names)))
	}
}

func verdict(holds bool) string {
	if holds {
		return "holds"
	}
	return "DIFFERS from the paper"
}
