// Command roundsfig measures data-parallel BCFW rounds (fwstruct-dist
// rounds) on Beam's prism runner in-process, beside BCFW on one machine, and
// fits a model of the wall time of a round to the measurements, drawn to 64
// machines (docs/distributed.md).
//
// For every combine, H and K it runs the rounds to the smallest gap of -gaps
// (or -max-rounds), the gap certified every round, and prints the rounds,
// passes and oracle calls to every gap of -gaps; BCFW on one machine (no gap
// passes, an observe-only exact evaluation every pass, which does not change
// its trajectory) gives the passes to the same gaps. -out writes every run's
// trace as JSON lines; -figure draws the model: the time of a round against
// the number of machines K (oracle time / K, the combine, the reads of w and
// the partitions' state, the pipeline's start; the per-machine parts fitted
// to the runs with K = 1) and the time to the smallest gap every run
// reached, rounds(K) times the round, with rounds(K) fitted to the measured
// K. -from draws from the traces of earlier -out files (concatenated)
// instead of running. docs/distributed.md has the commands of its figures.
//
//	cd dist && go run ./tools/roundsfig -data ocr \
//	    -data-options '{"path": "/work/shared/data", "split": "large"}' -lambda 0.01 \
//	    -ks 1,2,4,8 -hs 1,4 -out ocr-large.jsonl -figure ocr-large.png
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/dist"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

func main() {
	data := flag.String("data", "ocr", "the dataset")
	dataOpts := flag.String("data-options", "", "the data's options (JSON of datasets.Options)")
	lambda := flag.Float64("lambda", 0.01, "lambda")
	method := flag.String("method", `{"method": "bcfw", "storage": 2}`, "BCFW's settings (JSON)")
	ks := flag.String("ks", "1,2,4,8", "the partition counts K")
	hs := flag.String("hs", "1,4", "the local passes H")
	combines := flag.String("combine", "adding", "the combines, comma-separated (adding, averaging)")
	gapList := flag.String("gaps", "0.1,0.01,0.001", "the gaps to report")
	maxRounds := flag.Int("max-rounds", 200, "the most rounds of a run")
	maxPasses := flag.Float64("max-passes", 400, "the most passes of BCFW on one machine")
	workers := flag.Int("workers", 1, "goroutines of each partition's solver (and of BCFW's)")
	out := flag.String("out", "", "write the traces to `FILE` (JSON lines)")
	figure := flag.String("figure", "", "draw the time model to `FILE` (.png or .svg)")
	fromFile := flag.String("from", "", "draw the figure from the traces of `FILE` (an -out of before) instead of running")
	flag.Parse()
	beamlog.LogLevel = "error"
	beam.Init()
	if tmp, err := os.MkdirTemp("", "roundsfig-"); err == nil {
		defer os.RemoveAll(tmp)
		os.Setenv("TMPDIR", tmp)
	}
	gaps := floatsOf(*gapList)
	var runs []record
	if *fromFile != "" {
		b, err := os.ReadFile(*fromFile)
		check(err)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r record
			check(json.Unmarshal([]byte(line), &r))
			runs = append(runs, r)
			fmt.Printf("%-22s %s\n", r.Name, describe(r, gaps))
		}
	} else {
		spec := datasets.Spec{Name: *data}
		if *dataOpts != "" {
			check(json.Unmarshal([]byte(*dataOpts), &spec.Options))
		}
		m, err := run.Decode([]byte(*method))
		check(err)
		b := m.WithLambda(*lambda).(solver.BCFW)
		runs = measure(spec, b, intsOf(*ks), floatsOf(*hs), strings.Split(*combines, ","), gaps, *maxRounds, *maxPasses, *workers, *out)
	}
	if *figure != "" {
		check(draw(runs, gaps, *figure))
	}
}

// record is one run: BCFW on one machine (K 0) or the rounds of (combine,
// H, K).
type record struct {
	Name    string            `json:"name"`
	K       int               `json:"k"`
	H       float64           `json:"h"`
	Combine string            `json:"combine,omitempty"`
	N       int               `json:"n"`
	D       int               `json:"d"`
	Seconds float64           `json:"seconds"`
	Trace   []dist.RoundPoint `json:"trace,omitempty"`
	// Passes and Gaps are BCFW's trace on one machine.
	Passes []float64 `json:"passes,omitempty"`
	Gaps   []float64 `json:"gaps,omitempty"`
	// StepSeconds is BCFW's solver time a block step.
	StepSeconds float64 `json:"step_seconds,omitempty"`
}

func measure(spec datasets.Spec, m solver.BCFW, ks []int, hs []float64, combines []string, gaps []float64, maxRounds int,
	maxPasses float64, workers int, out string) []record {
	ctx := context.Background()
	d, err := spec.Load()
	check(err)
	n := d.Train.Len()
	tol := slices.Min(gaps)
	var runs []record
	var f *os.File
	if out != "" {
		f, err = os.Create(out)
		check(err)
		defer f.Close()
	}
	emit := func(r record) {
		runs = append(runs, r)
		if f != nil {
			b, err := json.Marshal(r)
			check(err)
			fmt.Fprintf(f, "%s\n", b)
		}
	}
	// BCFW on one machine.
	ref := m
	ref.GapEvery, ref.TraceEvery = -1, 1
	s, err := ref.New(d.Train, run.WithWorkers(workers))
	check(err)
	start := time.Now()
	_, err = s.Run(ctx, run.Stop{Passes: maxPasses, Gap: tol})
	check(err)
	bc := record{Name: "bcfw", N: n, D: d.Train.Dim(), Seconds: time.Since(start).Seconds(),
		StepSeconds: s.Elapsed().Seconds() / float64(s.Steps())}
	for _, p := range s.Trace() {
		bc.Passes, bc.Gaps = append(bc.Passes, p.Pass), append(bc.Gaps, p.Gap)
	}
	emit(bc)
	fmt.Printf("data %s: n %d, d %d, lambda %g; BCFW on one machine: %.1f us a step\n", spec.Name, n, bc.D, m.Lambda, 1e6*bc.StepSeconds)
	fmt.Printf("%-22s %s\n", "bcfw", describe(bc, gaps))
	for _, c := range combines {
		comb := solver.Adding
		if c == "averaging" {
			comb = solver.Averaging
		}
		for _, h := range hs {
			for _, k := range ks {
				state, err := os.MkdirTemp("", "rounds-state-")
				check(err)
				cfg := dist.Rounds{Method: m, Data: spec, K: k, Passes: h, Combine: comb, Seed: 1, Workers: workers,
					State: state, GapEvery: 1, Gap: tol, MaxRounds: maxRounds}
				start := time.Now()
				res, err := dist.RunRounds(ctx, dist.Beam{}, cfg)
				os.RemoveAll(state)
				check(err)
				r := record{Name: fmt.Sprintf("%s H=%g K=%d", c, h, k), K: k, H: h, Combine: c, N: n, D: res.D,
					Seconds: time.Since(start).Seconds(), Trace: res.Trace}
				emit(r)
				fmt.Printf("%-22s %s\n", r.Name, describe(r, gaps))
			}
		}
	}
	return runs
}

// describe returns the rounds (or BCFW's passes) to every gap, the oracle
// calls (the steps' and the certified gaps'), and the median times of a
// round.
func describe(r record, gaps []float64) string {
	var b strings.Builder
	if r.K == 0 {
		for _, g := range gaps {
			fmt.Fprintf(&b, "gap %g: ", g)
			at := slices.IndexFunc(r.Gaps, func(v float64) bool { return v <= g })
			if at < 0 {
				b.WriteString("not reached; ")
				continue
			}
			fmt.Fprintf(&b, "%.0f passes; ", r.Passes[at])
		}
		fmt.Fprintf(&b, "%.1f s", r.Seconds)
		return b.String()
	}
	for _, g := range gaps {
		fmt.Fprintf(&b, "gap %g: ", g)
		at := slices.IndexFunc(r.Trace, func(p dist.RoundPoint) bool { return p.Gap <= g })
		if at < 0 {
			b.WriteString("not reached; ")
			continue
		}
		p := r.Trace[at]
		fmt.Fprintf(&b, "%d rounds, %.0f passes, %d oracle calls (%d of the gaps); ", p.Round, p.Passes, p.OracleCalls+p.GapCalls, p.GapCalls)
	}
	t := times(r)
	fmt.Fprintf(&b, "a round: %.3f s wall (steps %.3f max %.3f sum, gap %.3f, combine %.4f, broadcast %.3f); %.1f s in all",
		t.seconds, t.local, t.localSum, t.gap, t.combine, t.broadcast, r.Seconds)
	return b.String()
}

// roundTimes are the median times of a run's rounds.
type roundTimes struct{ seconds, local, localSum, gap, combine, broadcast float64 }

func times(r record) roundTimes {
	med := func(f func(dist.RoundPoint) float64) float64 {
		var x []float64
		for _, p := range r.Trace {
			x = append(x, f(p))
		}
		sort.Float64s(x)
		return stat.Quantile(0.5, stat.Empirical, x, nil)
	}
	return roundTimes{
		med(func(p dist.RoundPoint) float64 { return p.Seconds }),
		med(func(p dist.RoundPoint) float64 { return p.Local }),
		med(func(p dist.RoundPoint) float64 { return p.LocalSum }),
		med(func(p dist.RoundPoint) float64 { return p.GapSeconds }),
		med(func(p dist.RoundPoint) float64 { return p.Combine }),
		med(func(p dist.RoundPoint) float64 { return p.Broadcast }),
	}
}

// model is the fitted wall time of a round on K machines:
// steps H n / K + gap n / K + combine0 + combine1 K + state / K + start.
type model struct {
	step, oracle       float64 // seconds a block step, an oracle call of the gap
	combine0, combine1 float64
	state              float64 // reading w and every partition's state, writing the states
	start              float64 // the pipeline's start and the write of w
	n                  int
}

// fit fits the model to the runs. The per-machine parts (a block step, an
// oracle call of the gap, the state's reads and writes, the pipeline's
// start) come from the runs with K = 1, the only ones where no two units
// share the cores here; the combine, made by the coordinator alone, by least
// squares against K over every run.
func fit(runs []record) (model, error) {
	var m model
	var steps, stepTime, gapCalls, gapTime float64
	var ks, comb, state, starts []float64
	for _, r := range runs {
		if r.K == 0 {
			continue
		}
		m.n = r.N
		for _, p := range r.Trace {
			ks, comb = append(ks, float64(r.K)), append(comb, p.Combine)
			if r.K != 1 {
				continue
			}
			steps, stepTime = steps+float64(r.N)*r.H, stepTime+p.Local
			if !math.IsNaN(p.Gap) {
				gapCalls, gapTime = gapCalls+float64(r.N), gapTime+p.GapSeconds
			}
			state = append(state, p.Broadcast)
			starts = append(starts, p.Seconds-p.Local-p.GapSeconds-p.Combine-p.Broadcast)
		}
	}
	if steps == 0 || len(ks) < 2 {
		return m, fmt.Errorf("the model needs a run with K = 1 and another K")
	}
	median := func(x []float64) float64 {
		sort.Float64s(x)
		return stat.Quantile(0.5, stat.Empirical, x, nil)
	}
	m.step, m.oracle = stepTime/steps, gapTime/max(gapCalls, 1)
	m.combine0, m.combine1 = stat.LinearRegression(ks, comb, nil, false)
	m.state, m.start = median(state), median(starts)
	return m, nil
}

// round returns the model's parts of a round on k machines with h local
// passes and a certified gap.
func (m model) round(k int, h float64) (steps, gap, combine, state, start float64) {
	kf := float64(k)
	return m.step * h * float64(m.n) / kf, m.oracle * float64(m.n) / kf, max(m.combine0+m.combine1*kf, 0),
		m.state / kf, max(m.start, 0)
}

// draw draws the model's round time against K = 1..64 and the time to the
// smallest gap of gaps that every run reached, rounds(K) from a fit of log
// rounds against log K.
func draw(runs []record, gaps []float64, path string) error {
	m, err := fit(runs)
	if err != nil {
		return err
	}
	fmt.Printf("model of a round: %.3g s a block step, %.3g s an oracle call of the gap, combine %.3g + %.3g K s, w and the state %.3g/K s, start %.3g s\n",
		m.step, m.oracle, m.combine0, m.combine1, m.state, m.start)
	// The gap drawn: the smallest of gaps that every run reached (else the
	// largest), so that rounds(K) is fitted on every K.
	target := slices.Max(gaps)
	for _, g := range gaps {
		every := true
		for _, r := range runs {
			every = every && (r.K == 0 || slices.IndexFunc(r.Trace, func(p dist.RoundPoint) bool { return p.Gap <= g }) >= 0)
		}
		if every {
			target = min(target, g)
		}
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Data-parallel BCFW rounds: the model of a round fitted on prism (n = %d), drawn to 64 machines", m.n)
	p.X.Label.Text = "machines K"
	p.Y.Label.Text = "seconds"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
	hs := map[float64]bool{}
	first := "" // the combine drawn: the first measured
	for _, r := range runs {
		if r.K > 0 {
			hs[r.H] = true
			if first == "" {
				first = r.Combine
			}
		}
	}
	var hlist []float64
	for h := range hs {
		hlist = append(hlist, h)
	}
	sort.Float64s(hlist)
	colors := []color.RGBA{{R: 200, A: 255}, {B: 200, A: 255}, {G: 150, A: 255}, {R: 150, B: 150, A: 255}}
	for hi, h := range hlist {
		// rounds(K) to the target gap, measured, and its fit log r = a + b log K.
		var lk, lr []float64
		for _, r := range runs {
			if r.K == 0 || r.H != h || r.Combine != first {
				continue
			}
			at := slices.IndexFunc(r.Trace, func(p dist.RoundPoint) bool { return p.Gap <= target })
			if at >= 0 {
				lk, lr = append(lk, math.Log(float64(r.K))), append(lr, math.Log(float64(r.Trace[at].Round)))
			}
		}
		var round, total plotter.XYs
		best, bestK := math.Inf(1), 0
		a, slope := math.NaN(), math.NaN()
		if len(lk) >= 2 {
			a, slope = stat.LinearRegression(lk, lr, nil, false)
			fmt.Printf("H = %g: rounds to gap %g = %.3g K^%.3g\n", h, target, math.Exp(a), slope)
		}
		for k := 1; k <= 64; k++ {
			s, g, c, b, st := m.round(k, h)
			t := s + g + c + b + st
			round = append(round, plotter.XY{X: float64(k), Y: t})
			if len(lk) >= 2 {
				rounds := math.Exp(a + slope*math.Log(float64(k)))
				total = append(total, plotter.XY{X: float64(k), Y: rounds * t})
				if rounds*t < best {
					best, bestK = rounds*t, k
				}
			}
		}
		col := colors[hi%len(colors)]
		l, err := plotter.NewLine(round)
		if err != nil {
			return err
		}
		l.Color = col
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("a round, H = %g", h), l)
		if len(total) > 0 {
			lt, err := plotter.NewLine(total)
			if err != nil {
				return err
			}
			lt.Color, lt.Width = col, vg.Points(1.5)
			p.Add(lt)
			p.Legend.Add(fmt.Sprintf("to gap %g, H = %g (rounds fitted on K <= 8; least at K = %d)", target, h, bestK), lt)
			fmt.Printf("H = %g: time to gap %g least at K = %d (%.3g s)\n", h, target, bestK, best)
		}
		for k := 1; k <= 64; k *= 2 {
			s, g, c, b, st := m.round(k, h)
			t := s + g + c + b + st
			fmt.Printf("  K = %2d, H = %g: a round %.3g s = steps %.3g + gap %.3g + combine %.3g + w and state %.3g + start %.3g; to gap %g %.3g s\n",
				k, h, t, s, g, c, b, st, target, math.Exp(a+slope*math.Log(float64(k)))*t)
		}
	}
	p.Legend.Top = true
	return p.Save(11*vg.Inch, 6*vg.Inch, path)
}

func floatsOf(s string) []float64 {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		check(err)
		out = append(out, v)
	}
	return out
}

func intsOf(s string) []int {
	var out []int
	for _, v := range floatsOf(s) {
		out = append(out, int(v))
	}
	return out
}

// check stops the program on an error (on stderr: the standard logger's
// output may be Beam's).
func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "roundsfig:", err)
		os.Exit(1)
	}
}
