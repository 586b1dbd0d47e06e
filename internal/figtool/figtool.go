// Package figtool holds what the figure programs of tools/ that measure
// papers.Figure1 panels (alignfigs, appendixfigs) share: their list flags,
// the files of a panel, and the table of a panel's medians at pass
// budgets.
package figtool

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb/papers"
	"github.com/fwstruct/fwstruct/viz"
)

// ParseList parses a comma-separated list, every item (spaces trimmed)
// by parse, and returns the first error of parse.
func ParseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseSeeds parses a comma-separated list of seeds (unsigned integers).
func ParseSeeds(s string) ([]uint64, error) {
	return ParseList(s, func(s string) (uint64, error) { return strconv.ParseUint(s, 10, 64) })
}

// Budgets returns the budgets of grid that are at most passes, in the
// order of grid.
func Budgets(grid []float64, passes float64) []float64 {
	var out []float64
	for _, b := range grid {
		if b <= passes {
			out = append(out, b)
		}
	}
	return out
}

// Median returns the median of v (the mean of the two middle values for
// an even count), NaN for no value; v is left unchanged.
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// lastWithin returns, for every trace, the index of its last point within
// b passes (-1: none).
func lastWithin(traces [][]run.Point, b float64) []int {
	idx := make([]int, len(traces))
	for r, t := range traces {
		idx[r] = -1
		for k, q := range t {
			if q.Pass <= b+1e-9 {
				idx[r] = k
			}
		}
	}
	return idx
}

// PrintBudgets prints, for every method of p, the median over its runs of
// the primal suboptimality (Figure1Panel.Suboptimality) and of the test
// loss (the traces' TestLoss, named loss in the caption) at the last point
// of each run within each budget of passes; "-" where no run has a point
// within the budget.
func PrintBudgets(w io.Writer, p *papers.Figure1Panel, budgets []float64, loss string) {
	fmt.Fprintf(w, "lambda = %.3g: primal suboptimality (primal - best dual %.6g) / %s, median over seeds, at the last point within P passes\n", p.Lambda, p.BestDual, loss)
	name := len("method")
	for _, m := range p.Methods {
		name = max(name, len(m.Name))
	}
	const cell = 18
	fmt.Fprintf(w, "  %-*s", name+1, "method")
	for _, b := range budgets {
		fmt.Fprintf(w, " %*s", cell, fmt.Sprintf("P = %g", b))
	}
	fmt.Fprintln(w)
	for _, m := range p.Methods {
		sub := p.Suboptimality(m)
		fmt.Fprintf(w, "  %-*s", name+1, m.Name)
		for _, b := range budgets {
			var s, l []float64
			for r, k := range lastWithin(sub, b) {
				if k >= 0 {
					s = append(s, sub[r][k].Primal)
					l = append(l, m.Traces[r][k].TestLoss)
				}
			}
			if len(s) == 0 {
				fmt.Fprintf(w, " %*s", cell, "-")
				continue
			}
			fmt.Fprintf(w, " %*s", cell, fmt.Sprintf("%.3g / %.4f", Median(s), Median(l)))
		}
		fmt.Fprintln(w)
	}
}

// WritePanel writes into dir the figures of panel p, its objective and
// test-loss figures as 900 x 600 PNG, and its traces (the test loss under
// the JSON key testKey): NAME-objective-LAMBDA.png, NAME-LOSS-LAMBDA.png
// and NAME-traces-LAMBDA.json, LAMBDA written with 3 significant digits.
func WritePanel(dir, name string, p *papers.Figure1Panel, objective, testLoss *viz.Figure, loss, testKey string) error {
	lambda := fmt.Sprintf("%.3g", p.Lambda)
	for _, f := range []struct {
		kind string
		save func(string) error
	}{
		{"objective-" + lambda + ".png", func(path string) error { return objective.Save(path, 900, 600) }},
		{loss + "-" + lambda + ".png", func(path string) error { return testLoss.Save(path, 900, 600) }},
		{"traces-" + lambda + ".json", func(path string) error { return p.WriteTraces(path, testKey) }},
	} {
		if err := f.save(filepath.Join(dir, name+"-"+f.kind)); err != nil {
			return err
		}
	}
	return nil
}
