package viz

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestAmdahlSeconds checks the model on made-up numbers worked out by
// hand: T(k) = T1 * passes(k)/passes(1) * ((1 - p) + p/k).
func TestAmdahlSeconds(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name                    string
		t1, passes1, passesK, p float64
		k                       int
		want                    float64
	}{
		{"one worker is the sequential run", 10, 100, 100, 0.9, 1, 10},
		{"p = 0.9 at 2 workers", 10, 100, 100, 0.9, 2, 5.5},                  // 10 * (0.1 + 0.45)
		{"staleness: 1.5 times the passes", 10, 100, 150, 0.9, 2, 8.25},      // 5.5 * 1.5
		{"nothing to split", 10, 100, 120, 0, 64, 12},                        // passes alone
		{"everything split", 12, 100, 100, 1, 4, 3},                          // linear speedup
		{"Amdahl's limit at 64", 10, 100, 100, 0.5, 64, 10 * (0.5 + 0.5/64)}, // 5.078...
		{"fewer passes with more workers", 8, 200, 100, 0.75, 4, 8 * 0.5 * 0.4375},
		{"p above 1", 10, 100, 100, 1.1, 2, nan},
		{"p below 0", 10, 100, 100, -0.1, 2, nan},
		{"p unknown", 10, 100, 100, nan, 2, nan},
		{"no workers", 10, 100, 100, 0.5, 0, nan},
		{"not reached at k", 10, 100, nan, 0.5, 2, nan},
		{"not reached sequentially", nan, 100, 100, 0.5, 2, nan},
		{"zero passes", 10, 0, 100, 0.5, 2, nan},
		{"infinite time", math.Inf(1), 100, 100, 0.5, 2, nan},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := AmdahlSeconds(c.t1, c.passes1, c.passesK, c.p, c.k)
			if math.IsNaN(c.want) {
				if !math.IsNaN(got) {
					t.Errorf("got %v, want NaN", got)
				}
				return
			}
			if math.Abs(got-c.want) > 1e-12*c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// scalingStudy is a made-up study: simulated passes at K = 1..64 (64 not
// reached), a sequential run, a mini-batch and an asynchronous run at 2
// workers (the mini-batch not reached).
func scalingStudy() WorkerScaling {
	return WorkerScaling{Target: 0.001, Share: 0.8, Name: "delay simulator", Style: MethodStyle(0),
		Workers: []int{1, 2, 4, 8, 16, 32, 64},
		Passes:  []float64{100, 101, 104, 110, 125, 160, math.NaN()},
		Measured: []WorkerRun{
			{Name: "sequential", Workers: 1, Passes: 100, Seconds: 20, Style: MethodStyle(1)},
			{Name: "mini-batch of 2", Workers: 2, Passes: math.NaN(), Seconds: math.NaN(), Style: MethodStyle(2)},
			{Name: "asynchronous", Workers: 2, Passes: 102, Seconds: 13, Style: MethodStyle(3)},
		}}
}

// TestWorkerFigures checks what the two panels draw against the study:
// the log axis of workers with ticks 1, 2, 4, ..., 64, the simulated
// passes, the prediction of AmdahlSeconds at every K (none where the
// passes are missing), Amdahl's law alone, the measured runs as markers
// at their workers, and the notes on what did not reach the target.
func TestWorkerFigures(t *testing.T) {
	s := scalingStudy()
	passes, seconds := WorkerFigures(s)
	wantTicks := []float64{1, 2, 4, 8, 16, 32, 64}
	for _, f := range []*Figure{passes, seconds} {
		if !f.LogX || f.XRange != [2]float64{1, 64} || !equalFloats(f.XTicks, wantTicks) {
			t.Errorf("%q: log x %v, range %v, ticks %v", f.Title, f.LogX, f.XRange, f.XTicks)
		}
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(f.YLabel, "gap 0.001") {
			t.Errorf("%q: y label %q does not name the target", f.Title, f.YLabel)
		}
	}
	byName := func(f *Figure) map[string]Series {
		m := map[string]Series{}
		for _, sr := range f.Series {
			m[sr.Name] = sr
		}
		return m
	}
	ps := byName(passes)
	sim := ps["delay simulator"]
	if !equalFloats(sim.X, wantTicks) || !equalFloats(sim.Y, s.Passes) || sim.Color != s.Style.Color || !sim.Markers {
		t.Errorf("simulated passes: %+v", sim)
	}
	for _, m := range s.Measured {
		for _, f := range []*Figure{passes, seconds} {
			pt, ok := byName(f)[m.Name]
			want := m.Passes
			if f == seconds {
				want = m.Seconds
			}
			if !ok || !pt.MarkersOnly || !equalFloats(pt.X, []float64{float64(m.Workers)}) || !equalFloats(pt.Y, []float64{want}) || pt.Color != m.Style.Color {
				t.Errorf("%q: measured %s: %+v", f.Title, m.Name, pt)
			}
		}
	}
	ss := byName(seconds)
	var pred, bound Series
	for name, sr := range ss {
		switch {
		case strings.HasPrefix(name, "predicted"):
			pred = sr
			if !strings.Contains(name, "p = 0.8") {
				t.Errorf("prediction legend %q does not give p", name)
			}
		case strings.HasPrefix(name, "Amdahl alone"):
			bound = sr
		}
	}
	for i, k := range s.Workers {
		want := 20 * s.Passes[i] / 100 * (0.2 + 0.8/float64(k))
		if math.IsNaN(s.Passes[i]) {
			if !math.IsNaN(pred.Y[i]) {
				t.Errorf("prediction at K = %d: %v, want NaN (not reached)", k, pred.Y[i])
			}
			continue
		}
		if pred.X[i] != float64(k) || math.Abs(pred.Y[i]-want) > 1e-12 {
			t.Errorf("prediction at K = %d: (%v, %v), want %v", k, pred.X[i], pred.Y[i], want)
		}
		if math.Abs(bound.Y[i]-20*(0.2+0.8/float64(k))) > 1e-12 || bound.Color != refColor {
			t.Errorf("Amdahl alone at K = %d: %v (color %s)", k, bound.Y[i], bound.Color)
		}
	}
	if passes.YRange != [2]float64{0, 1.1 * 160} {
		t.Errorf("passes y range %v, want [0, 176]: from 0 to above the largest value", passes.YRange)
	}
	notes := strings.Join(passes.Notes, " | ")
	if !strings.Contains(notes, "not reached at K = 64") || !strings.Contains(notes, "not reached: mini-batch of 2") {
		t.Errorf("passes notes: %q", notes)
	}
	if strings.Contains(strings.Join(seconds.Notes, " "), "no prediction") {
		t.Errorf("seconds notes: %q", seconds.Notes)
	}
	for _, f := range []*Figure{passes, seconds} {
		var buf bytes.Buffer
		if err := f.WritePNG(&buf, 640, 400); err != nil {
			t.Fatal(err)
		}
		if got := pngText(buf.Bytes())[PNGDrawnKey]; got != strconv.Itoa(f.Drawn()) || f.Drawn() < 3 {
			t.Errorf("%q: the PNG says drawn %q, Drawn() %d", f.Title, got, f.Drawn())
		}
	}
}

// TestWorkerFiguresNoPrediction: without a sequential run that reached the
// target, or without p, the time panel draws the measured runs and says
// why it predicts nothing; K = 1 missing from the simulated runs takes
// passes(1) from the sequential run.
func TestWorkerFiguresNoPrediction(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*WorkerScaling)
		why  string
	}{
		{"no sequential run", func(s *WorkerScaling) { s.Measured = s.Measured[1:] }, "no measured run with one worker"},
		{"sequential not reached", func(s *WorkerScaling) { s.Measured[0].Seconds = math.NaN() }, "did not reach gap 0.001"},
		{"share unknown", func(s *WorkerScaling) { s.Share = math.NaN() }, "the share p of the workers is unknown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := scalingStudy()
			c.edit(&s)
			_, seconds := WorkerFigures(s)
			if got := strings.Join(seconds.Notes, " | "); !strings.Contains(got, "no prediction: ") || !strings.Contains(got, c.why) {
				t.Errorf("notes %q, want the reason %q", got, c.why)
			}
			for _, sr := range seconds.Series {
				if !sr.MarkersOnly {
					t.Errorf("series %q drawn without a prediction", sr.Name)
				}
			}
		})
	}
	s := scalingStudy()
	s.Workers, s.Passes = s.Workers[1:], s.Passes[1:]
	s.Measured[0].Passes = 80 // passes(1) now comes from the sequential run
	_, seconds := WorkerFigures(s)
	for _, sr := range seconds.Series {
		if strings.HasPrefix(sr.Name, "predicted") {
			if want := 20 * 101.0 / 80 * (0.2 + 0.8/2); math.Abs(sr.Y[0]-want) > 1e-12 {
				t.Errorf("prediction at K = 2 with passes(1) of the sequential run: %v, want %v", sr.Y[0], want)
			}
			return
		}
	}
	t.Error("no prediction")
}

// TestXTicks: the ticks must be increasing and drawable on their axis, on
// line charts only; a static figure labels exactly them.
func TestXTicks(t *testing.T) {
	line := func(ticks []float64, log bool) *Figure {
		return &Figure{LogX: log, XTicks: ticks, Series: []Series{{X: []float64{1, 4}, Y: []float64{1, 2}}}}
	}
	for _, c := range []struct {
		name string
		f    *Figure
		ok   bool
	}{
		{"powers of two on a log axis", line([]float64{1, 2, 4}, true), true},
		{"zero on a linear axis", line([]float64{0, 2, 4}, false), true},
		{"zero on a log axis", line([]float64{0, 2, 4}, true), false},
		{"decreasing", line([]float64{4, 2}, false), false},
		{"repeated", line([]float64{2, 2}, false), false},
		{"NaN", line([]float64{1, math.NaN()}, false), false},
		{"bars", &Figure{Kind: Bars, XTicks: []float64{1}, Categories: []string{"a"}, Series: []Series{{Y: []float64{1}}}}, false},
	} {
		if err := c.f.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", c.name, err, c.ok)
		}
	}
	ticks := fixedTicks([]float64{1, 2, 64})
	if len(ticks) != 3 || ticks[2].Value != 64 || ticks[2].Label != "64" || ticks[0].Label != "1" {
		t.Errorf("ticks %+v", ticks)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}
