package papers

import (
	"context"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/viz"
)

// NamedPath is a regularization path with a legend label.
type NamedPath struct {
	Name string
	Path *solver.Path
}

// NamedGrid is a grid search with a legend label.
type NamedGrid struct {
	Name   string
	Points []solver.GridPoint
}

// PathCost plots the cumulative cost to reach every lambda (Osokin et al.
// 2016, Fig. 4, 7a and 8), measured as cost says (viz.Passes: effective
// passes, viz.Seconds: solver seconds, viz.OracleCalls: oracle calls),
// against lambda on log axes, for paths (at their breakpoints) and grid
// searches (at their grid points), each in its style (StyleOf). Lambda
// decreases along every curve.
func PathCost(cost viz.XAxis, paths []NamedPath, grids []NamedGrid) *viz.Figure {
	f := &viz.Figure{Title: "Cost to reach each lambda", XLabel: "lambda", YLabel: "cumulative " + cost.String(), LogX: true, LogY: true}
	of := func(passes, secs float64, calls int64) float64 {
		switch cost {
		case viz.Seconds:
			return secs
		case viz.OracleCalls:
			return float64(calls)
		}
		return passes
	}
	for _, p := range paths {
		st := ssvmnb.StyleOf(p.Name)
		s := viz.Series{Name: p.Name, Color: st.Color, Dash: st.Dash, Markers: true}
		for _, b := range p.Path.Breakpoints {
			s.X = append(s.X, b.Lambda)
			s.Y = append(s.Y, of(b.Passes, b.Seconds, b.OracleCalls))
		}
		f.Series = append(f.Series, s)
	}
	for _, g := range grids {
		st := ssvmnb.StyleOf(g.Name)
		s := viz.Series{Name: g.Name, Color: st.Color, Dash: st.Dash, Markers: true}
		for _, pt := range g.Points {
			s.X = append(s.X, pt.Lambda)
			s.Y = append(s.Y, of(pt.Passes, pt.Seconds, pt.OracleCalls))
		}
		f.Series = append(f.Series, s)
	}
	return f
}

// PathGaps plots, for every path, the gap at each breakpoint (the one the
// path relies on, dashed) and the exact gap when known (markers), against
// lambda,
// with the reference lines epsilon and kappa*epsilon of the first path
// (Osokin et al. 2016, Fig. 7b: the true gaps of the heuristic path).
func PathGaps(paths ...NamedPath) *viz.Figure {
	f := &viz.Figure{Title: "Gap at each breakpoint", XLabel: "lambda", YLabel: "duality gap", LogX: true, LogY: true}
	for _, p := range paths {
		st := ssvmnb.StyleOf(p.Name)
		used := viz.Series{Name: p.Name + " (used)", Color: st.Color, Dash: viz.Dashed}
		exact := viz.Series{Name: p.Name + " (true)", Color: st.Color, Dash: st.Dash, Markers: true}
		known := false
		for _, b := range p.Path.Breakpoints[1:] {
			used.X = append(used.X, b.Lambda)
			used.Y = append(used.Y, b.Gap)
			exact.X = append(exact.X, b.Lambda)
			exact.Y = append(exact.Y, b.TrueGap)
			known = known || !math.IsNaN(b.TrueGap)
		}
		f.Series = append(f.Series, used)
		if known {
			f.Series = append(f.Series, exact)
		} else {
			f.Notes = append(f.Notes, fmt.Sprintf("%s: true gaps not computed (PathConfig.TrueGaps)", p.Name))
		}
	}
	if len(paths) > 0 {
		p := paths[0].Path
		f.HLines = []viz.HLine{{Y: p.Epsilon, Label: "epsilon"}, {Y: p.Kappa * p.Epsilon, Label: fmt.Sprintf("kappa epsilon (kappa %g)", p.Kappa)}}
	}
	return f
}

// KappaSweep computes the path for every kappa (the other settings from
// base) and returns the paths; see PathTable. In a notebook a progress line
// says which path is being computed.
func KappaSweep(ctx context.Context, p oracles.Problem, base solver.PathConfig, kappas []float64) ([]NamedPath, error) {
	var out []NamedPath
	prog := ssvmnb.NewProgress("kappa sweep", len(kappas))
	defer prog.End()
	for _, k := range kappas {
		prog.Show(fmt.Sprintf("path with kappa %g", k))
		cfg := base
		cfg.Kappa = k
		path, err := solver.RegPath(ctx, p, cfg)
		if err != nil {
			return out, fmt.Errorf("papers: kappa %v: %w", k, err)
		}
		name := fmt.Sprintf("kappa %g", k)
		if cfg.Heuristic {
			name += " (heuristic)"
		}
		out = append(out, NamedPath{Name: name, Path: path})
		prog.Step()
	}
	return out, nil
}

// PathTable tabulates paths: breakpoints, range of lambda, cumulative
// passes and seconds, and how many breakpoints have an exact gap above
// epsilon (heuristic paths with true gaps).
func PathTable(paths ...NamedPath) *ssvmnb.Table {
	t := &ssvmnb.Table{Caption: "regularization paths",
		Columns: []string{"path", "breakpoints", "lambda_inf", "last lambda", "complete", "passes", "solver s", "wall s", "true gaps > eps"}}
	for _, np := range paths {
		bps := np.Path.Breakpoints
		last := bps[len(bps)-1]
		above := 0
		for _, b := range bps[1:] {
			if b.TrueGap > np.Path.Epsilon {
				above++
			}
		}
		t.AddRow(np.Name, len(bps), bps[0].Lambda, last.Lambda, np.Path.Complete, last.Passes, last.Seconds, last.WallSeconds, above)
	}
	return t
}
