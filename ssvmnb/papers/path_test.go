package papers

import (
	"context"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/viz"
)

// TestPathFigures: the table and figures of Osokin et al. (2016) read
// what the paths and the grid search hold.
func TestPathFigures(t *testing.T) {
	ctx := context.Background()
	tr, _ := synthetic(t)
	path, err := solver.RegPath(ctx, tr, solver.PathConfig{Epsilon: 0.3, LambdaMin: 0.05, Method: solver.BCFW{Step: solver.Pairwise}})
	if err != nil {
		t.Fatal(err)
	}
	grid, err := solver.GridSearch(ctx, tr, solver.GridConfig{Lambdas: []float64{1, 0.25, 0.0625}, Tolerance: 0.3, Warm: true})
	if err != nil {
		t.Fatal(err)
	}
	paths := []NamedPath{{"path", path}}
	if tab := PathTable(paths...); len(tab.Rows) != 1 {
		t.Fatal("path table")
	}
	bps := path.Breakpoints
	cost := PathCost(viz.Passes, paths, []NamedGrid{{"warm grid", grid}})
	if len(cost.Series) != 2 || len(cost.Series[0].X) != len(bps) || cost.Series[0].Y[len(bps)-1] != bps[len(bps)-1].Passes ||
		len(cost.Series[1].X) != len(grid) || cost.YLabel != "cumulative effective passes" {
		t.Fatalf("path cost: %+v", cost.Series)
	}
	if f := PathCost(viz.Seconds, paths, nil); len(f.Series) != 1 || f.Series[0].Y[len(bps)-1] != bps[len(bps)-1].Seconds || f.YLabel != "cumulative solver time (s)" {
		t.Fatalf("path time: %+v", f.Series)
	}
	if f := PathCost(viz.OracleCalls, paths, []NamedGrid{{"warm grid", grid}}); f.Series[0].Y[len(bps)-1] != float64(bps[len(bps)-1].OracleCalls) ||
		f.Series[1].Y[len(grid)-1] != float64(grid[len(grid)-1].OracleCalls) || f.YLabel != "cumulative oracle calls" {
		t.Fatalf("path oracle calls: %+v", f.Series)
	}
	gaps := PathGaps(paths...)
	if len(gaps.Series) == 0 || len(gaps.Series[0].X) != len(bps)-1 || len(gaps.HLines) != 2 {
		t.Fatalf("path gaps: %+v", gaps)
	}
	for k, b := range bps[1:] {
		if gaps.Series[0].Y[k] != b.Gap && !(math.IsNaN(b.Gap) && math.IsNaN(gaps.Series[0].Y[k])) {
			t.Fatalf("breakpoint %d: gap %v drawn as %v", k+1, b.Gap, gaps.Series[0].Y[k])
		}
	}
}
