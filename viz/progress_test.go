package viz

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// staleRun is a run whose gap estimate falls decades below its certified
// gap (stale block gaps never refreshed), with an event.
func staleRun() Run {
	var tr []run.Point
	for i := 0; i <= 10; i++ {
		p := run.Blank()
		p.Pass, p.Steps = float64(i), int64(10*i)
		p.Gap = 1 / float64(i+1)
		p.Primal, p.Dual = 0.5+p.Gap, 0.5
		p.GapEstimate = p.Gap * math.Pow(10, -float64(i))
		tr = append(tr, p)
	}
	tr[0].Dual = 0
	tr[4].Event = "fork: sampling uniform -> gap"
	return Run{Name: "stale", Trace: tr, Style: Style{Color: "#d62728"}}
}

// TestProgressEstimateClipped: the stale estimate does not stretch the y
// axis below the certified values: the axis ends within a factor 3 of the
// smallest certified value, the estimate is clamped to it, its clipped
// points are marked and noted, and its legend entry says it is an
// estimate.
func TestProgressEstimateClipped(t *testing.T) {
	r := staleRun()
	f := ProgressCurves(r)
	byName := map[string]Series{}
	var off *Series
	for i, s := range f.Series {
		byName[s.Name] = s
		if s.MarkersOnly {
			off = &f.Series[i]
		}
	}
	est, ok := byName[EstimateLabel]
	if !ok || !strings.Contains(EstimateLabel, "estimate") || !strings.Contains(EstimateLabel, "not a bound") {
		t.Fatalf("no series %q: %v", EstimateLabel, f.Series)
	}
	// The smallest certified value is the last gap, 1/11.
	if f.YRange[0] != 0.02 || f.YRange[1] != 2 {
		t.Errorf("y range %v, want [0.02, 2]", f.YRange)
	}
	clipped := 0
	for j, v := range est.Y {
		want := r.Trace[j].GapEstimate
		if want < f.YRange[0] {
			want = f.YRange[0]
			clipped++
		}
		if v != want || est.X[j] != r.Trace[j].Pass {
			t.Errorf("estimate point %d: (%v, %v), want (%v, %v)", j, est.X[j], v, r.Trace[j].Pass, want)
		}
	}
	if off == nil || len(off.X) != clipped || clipped < 5 || off.X[0] != 2 || off.Y[0] != f.YRange[0] || off.Color != "#d62728" {
		t.Fatalf("clipped points %+v, %d expected from pass 2", off, clipped)
	}
	if len(f.Notes) != 1 || !strings.HasPrefix(f.Notes[0], "gap estimate below the axis at 9 points (down to 9.1e-12)") {
		t.Errorf("notes %q", f.Notes)
	}
	if len(f.Marks) != 1 || f.Marks[0].X != 4 {
		t.Errorf("marks %+v", f.Marks)
	}
	// Both renderers keep the range and draw the clipped points as
	// markers only.
	var buf bytes.Buffer
	if err := f.WritePNG(&buf, 640, 400); err != nil {
		t.Fatal(err)
	}
	p, err := f.plot(px(640), px(400))
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0.02 || p.Y.Max != 2 {
		t.Errorf("static y axis [%v, %v]", p.Y.Min, p.Y.Max)
	}
	opt, err := f.EChartsOption()
	if err != nil {
		t.Fatal(err)
	}
	obj := parseOption(t, opt)
	if ya := axis(t, obj, "yAxis"); ya["min"] != 0.02 || ya["max"] != 2.0 {
		t.Errorf("echarts y axis %v", ya)
	}
	found := false
	for _, s := range obj["series"].([]interface{}) {
		m := s.(map[string]interface{})
		if ls, ok := m["lineStyle"].(map[string]interface{}); ok && ls["opacity"] == 0.0 && m["showSymbol"] == true {
			found = true
		}
	}
	if !found {
		t.Error("no markers-only series in the echarts option")
	}

	// An estimate close to the certified values leaves the axis alone.
	for i := range r.Trace {
		r.Trace[i].GapEstimate = r.Trace[i].Gap * 0.9
	}
	if f := ProgressCurves(r); f.YRange != [2]float64{} || len(f.Notes) != 0 || len(f.Series) != 4 {
		t.Errorf("estimate near the gap: range %v, notes %q, %d series", f.YRange, f.Notes, len(f.Series))
	}
}
