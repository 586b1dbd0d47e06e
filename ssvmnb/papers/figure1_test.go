package papers

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb"
)

// TestFigure1 runs a small Figure 1 and checks its structure and what its
// curves mean: the -wavg curves describe the averaged iterate (their test
// error is that of the averaged weights), suboptimalities are non-negative
// against the best dual, and the figures render.
func TestFigure1(t *testing.T) {
	tr, te := synthetic(t)
	panels, err := Figure1(context.Background(), tr, te, Figure1Config{Lambdas: []float64{0.05}, Seeds: []uint64{1, 2}, Passes: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != 1 || len(panels[0].Methods) != len(Figure1Methods) {
		t.Fatalf("%d panels, %d methods", len(panels), len(panels[0].Methods))
	}
	p := panels[0]
	for k, m := range p.Methods {
		if m.Name != Figure1Methods[k] {
			t.Fatalf("method %d is %q, want %q", k, m.Name, Figure1Methods[k])
		}
		runs := 2
		if m.Batch {
			runs = 1
		}
		if len(m.Traces) != runs {
			t.Fatalf("%s: %d runs, want %d", m.Name, len(m.Traces), runs)
		}
		for _, trace := range m.Traces {
			last := trace[len(trace)-1]
			if last.Pass != 4 || math.IsNaN(last.Primal) || math.IsNaN(last.TestLoss) {
				t.Fatalf("%s: last point %+v", m.Name, last)
			}
			if !math.IsNaN(last.Dual) && last.Dual > p.BestDual {
				t.Fatalf("%s: dual %v above the best dual %v", m.Name, last.Dual, p.BestDual)
			}
		}
		for _, trace := range p.Suboptimality(m) {
			for k, pt := range trace {
				if pt.Primal < -1e-12 || (m.Batch && k > 0 && pt.Primal > trace[k-1].Primal) {
					t.Fatalf("%s: suboptimality %v at point %d", m.Name, pt.Primal, k)
				}
			}
		}
	}
	// BCFW-wavg is the average of the BCFW run with the same seed.
	bcfw, wavg := p.Methods[0].Traces[1], p.Methods[1].Traces[1]
	for k := range bcfw {
		if wavg[k].Primal != bcfw[k].PrimalAvg || wavg[k].Pass != bcfw[k].Pass {
			t.Fatalf("point %d: wavg primal %v, averaged primal of the run %v", k, wavg[k].Primal, bcfw[k].PrimalAvg)
		}
	}
	if p.BestDual <= 0 || math.IsInf(p.BestDual, 0) {
		t.Fatalf("best dual %v", p.BestDual)
	}
	for _, f := range []interface{ Validate() error }{p.Objective(), p.TestError()} {
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Figure1(context.Background(), tr, te, Figure1Config{Methods: []string{"SDCA"}}); err == nil {
		t.Fatal("unknown method accepted")
	}
	only, err := Figure1(context.Background(), tr, nil, Figure1Config{Lambdas: []float64{0.1}, Passes: 2, Methods: []string{"cutting plane"}})
	if err != nil || len(only[0].Methods) != 1 || only[0].Methods[0].Name != "cutting plane" {
		t.Fatalf("methods %+v, %v", only, err)
	}
	// The test error of a -wavg curve is that of the averaged weights: an
	// independent run with the same configuration and seed agrees.
	rs, err := solver.BCFW{Lambda: 0.05, Average: run.WeightedAverage, GapEvery: math.Inf(1), TraceEvery: 1, Seed: 2}.New(tr)
	if err != nil {
		t.Fatal(err)
	}
	s := rs.(*solver.Solver)
	if _, err := s.Run(context.Background(), run.Stop{Passes: 4}); err != nil {
		t.Fatal(err)
	}
	if got, want := wavg[len(wavg)-1].TestLoss, oracles.MeanLoss(te, s.AverageWeights()); got != want {
		t.Fatalf("BCFW-wavg test error %v, averaged weights %v", got, want)
	}
}

// TestFigure1Appendix runs the methods of Fig. 3 and 4 of the appendix:
// the -tavg and -avg curves are the averages of runs whose plain iterates
// are BCFW's and SSG's of the same seed, BCFW-tavg and online EG carry
// certificates (dual and gap), the SSG averages only a primal.
func TestFigure1Appendix(t *testing.T) {
	tr, te := synthetic(t)
	methods := append([]string{"BCFW", "SSG"}, Figure1AppendixMethods...)
	panels, err := Figure1(context.Background(), tr, te, Figure1Config{Lambdas: []float64{0.05}, Seeds: []uint64{1, 2}, Passes: 5, Methods: methods})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Figure1Method{}
	for _, m := range panels[0].Methods {
		got[m.Name] = m
	}
	if len(got) != len(methods) {
		t.Fatalf("methods %v, want %v", panels[0].Methods, methods)
	}
	for _, name := range Figure1AppendixMethods {
		m := got[name]
		if len(m.Traces) != 2 || m.Batch {
			t.Fatalf("%s: %d runs, batch %v", name, len(m.Traces), m.Batch)
		}
		for _, trace := range m.Traces {
			for k, pt := range trace {
				withDual := name == "BCFW-tavg" || name == "online-EG"
				if math.IsNaN(pt.Primal) || math.IsNaN(pt.TestLoss) || withDual == math.IsNaN(pt.Dual) {
					t.Fatalf("%s point %d: %+v", name, k, pt)
				}
				if withDual && math.Abs(pt.Primal-pt.Dual-pt.Gap) > 1e-9*(1+pt.Primal) {
					t.Fatalf("%s point %d: primal %v dual %v gap %v", name, k, pt.Primal, pt.Dual, pt.Gap)
				}
			}
		}
	}
	// The suffix average restarts at powers of 2, so after the first step
	// of the second pass it differs from the weighted one; the plain
	// iterates of its run are BCFW's.
	bcfw, tavg := got["BCFW"].Traces[0], got["BCFW-tavg"].Traces[0]
	if len(bcfw) != len(tavg) || bcfw[len(bcfw)-1].Pass != tavg[len(tavg)-1].Pass {
		t.Fatalf("BCFW and BCFW-tavg traces differ in length")
	}
	if tavg[len(tavg)-1].Primal == bcfw[len(bcfw)-1].PrimalAvg {
		t.Fatal("BCFW-tavg equals BCFW-wavg")
	}
}

// Fig. 1 of Lacoste-Julien et al. (2013) on a small synthetic OCR-like
// problem: the panels hold every method's traces, and the final primal
// suboptimality shows BCFW ahead of batch FW after the same passes.
func ExampleFigure1() {
	train, test, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 60, TestWords: 40, Seed: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	panels, err := Figure1(context.Background(), train, test, Figure1Config{Lambdas: []float64{0.01}, Seeds: []uint64{1, 2, 3}, Passes: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := panels[0]
	final := func(m Figure1Method) float64 {
		var worst float64
		for _, tr := range p.Suboptimality(m) {
			worst = math.Max(worst, tr[len(tr)-1].Primal)
		}
		return worst
	}
	for _, m := range p.Methods {
		fmt.Printf("%-13s %d run(s)\n", m.Name, len(m.Traces))
	}
	fmt.Println("BCFW ahead of FW:", final(p.Methods[0]) < final(p.Methods[4]))
	// Output:
	// BCFW          3 run(s)
	// BCFW-wavg     3 run(s)
	// SSG           3 run(s)
	// SSG-wavg      3 run(s)
	// FW            1 run(s)
	// cutting plane 1 run(s)
	// BCFW ahead of FW: true
}

// BenchmarkFigure1OCRLarge times every configuration (method, lambda) of
// Figure1 with its defaults (3 seeds for the stochastic methods, 30
// passes) on OCR-large at the paper's lambdas, and reports the final
// median suboptimality and test error. Run with -benchtime 1x.
//
// On OCR-large (n = 6,251) one method at one lambda with the defaults
// takes under a minute: BCFW with BCFW-wavg about 45 s, SSG with SSG-wavg
// 30 s, FW and the cutting plane 4 s each, on a shared 2-core machine;
// every seed adds about 15 s to a stochastic method.
func BenchmarkFigure1OCRLarge(b *testing.B) {
	train, test, err := datasets.LoadOCR(realdata.File(b, "ocr/letter.data.gz"), datasets.SplitLarge)
	if err != nil {
		b.Fatal(err)
	}
	for _, lambda := range []float64{0.01, 0.001, 1 / float64(train.Len())} {
		for _, pair := range [][]string{{"BCFW", "BCFW-wavg"}, {"SSG", "SSG-wavg"}, {"FW"}, {"cutting plane"}} {
			b.Run(fmt.Sprintf("lambda=%.3g/%s", lambda, pair[0]), func(b *testing.B) {
				start := time.Now()
				panels, err := Figure1(b.Context(), train, test, Figure1Config{Lambdas: []float64{lambda}, Methods: pair})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(start).Seconds(), "s")
				p := panels[0]
				for _, m := range p.Methods {
					var sub, loss []float64
					for k, tr := range p.Suboptimality(m) {
						sub = append(sub, tr[len(tr)-1].Primal)
						loss = append(loss, m.Traces[k][len(tr)-1].TestLoss)
					}
					b.Logf("%s: median final primal suboptimality %.4g (vs the best dual of its panel), test error %.4f", m.Name, ssvmnb.Median(sub), ssvmnb.Median(loss))
				}
			})
		}
	}
}
