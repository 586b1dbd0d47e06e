package tune

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fwstruct/fwstruct/viz"
)

// Table returns the validation curve as a table: one row a value of the
// grid, with the mean metric, its standard error, the metric on each fold
// and the median passes, the chosen row marked "<- chosen".
func (r *Result) Table() (columns []string, rows [][]string) {
	columns = []string{"lambda"}
	if r.Aux != "" {
		columns = append(columns, r.Aux)
	}
	columns = append(columns, r.Metric, "std. error")
	for f := 0; f < r.Folds; f++ {
		columns = append(columns, fmt.Sprintf("fold %d", f+1))
	}
	columns = append(columns, "passes (max)", "")
	for k, p := range r.Curve {
		row := []string{num(p.Lambda)}
		if r.Aux != "" {
			row = append(row, num(p.Aux))
		}
		row = append(row, num(p.Mean), num(p.StdErr))
		for _, v := range p.Folds {
			row = append(row, num(v))
		}
		most := math.NaN()
		for _, v := range p.Passes {
			if math.IsNaN(most) || v > most {
				most = v
			}
		}
		row = append(row, num(most), "")
		if k == r.Best {
			row[len(row)-1] = "<- chosen"
		}
		rows = append(rows, row)
	}
	return columns, rows
}

// WriteTable writes Table to w as aligned text columns (the table of
// fwstruct tune and fwstruct-dist tune).
func (r *Result) WriteTable(w io.Writer) error {
	cols, rows := r.Table()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// WriteSummary writes the line that follows the table in fwstruct tune and
// fwstruct-dist tune: the chosen values (and whether they lie at an edge of
// the grid), their validation metric, and the final model's passes
// (finalPasses) and test metric.
func (r *Result) WriteSummary(w io.Writer, finalPasses float64) error {
	c := r.Chosen()
	chosen := fmt.Sprintf("lambda = %g", c.Lambda)
	if r.Aux != "" {
		chosen += fmt.Sprintf(", %s = %g", r.Aux, c.Aux)
	}
	if edge := r.Edge(); edge != "" {
		chosen += fmt.Sprintf(" (the %s lambda of the grid: a better one may lie beyond, extend --lambdas)", edge)
	}
	_, err := fmt.Fprintf(w, "chosen %s: %s %s (standard error %s over %d folds); final model: %.1f passes, test %s %s, %.1f s in all\n",
		chosen, r.Metric, num(c.Mean), num(c.StdErr), r.Folds, finalPasses, r.Metric, num(r.Test), r.Elapsed.Seconds())
	return err
}

// num formats a table value; "-" for a value not computed.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Figure returns the validation curve: the mean metric against lambda (log
// scale), with a band of one standard error across the folds, one curve a
// value of rho or gamma, and the chosen value marked.
func (r *Result) Figure() *viz.Figure {
	var curves []viz.ValidationSeries
	for k := 0; k < len(r.Curve); {
		s := viz.ValidationSeries{}
		if r.Aux != "" {
			s.Name = fmt.Sprintf("%s = %g", r.Aux, r.Curve[k].Aux)
		}
		for ; k < len(r.Curve) && (len(s.X) == 0 || r.Curve[k].Aux == r.Curve[k-1].Aux); k++ {
			s.X = append(s.X, r.Curve[k].Lambda)
			s.Mean = append(s.Mean, r.Curve[k].Mean)
			s.StdErr = append(s.StdErr, r.Curve[k].StdErr)
		}
		curves = append(curves, s)
	}
	how := fmt.Sprintf("%d-fold cross-validation", r.Folds)
	if r.HoldOut > 0 {
		how = fmt.Sprintf("held-out %g of the training set", r.HoldOut)
	}
	c := r.Chosen()
	label := fmt.Sprintf("chosen: lambda = %.3g", c.Lambda)
	if r.Aux != "" {
		label += fmt.Sprintf(", %s = %g", r.Aux, c.Aux)
	}
	return viz.ValidationCurve(fmt.Sprintf("Validation %s (%s)", r.Metric, how), "lambda", r.Metric, curves, c.Lambda, c.Mean, label)
}

// jsonPoint is Point in JSON: NaN values (not computed) are null.
type jsonPoint struct {
	Lambda  float64    `json:"lambda"`
	Aux     *float64   `json:"aux,omitempty"`
	Mean    *float64   `json:"mean"`
	StdErr  *float64   `json:"std_err,omitempty"`
	Folds   []*float64 `json:"folds"`
	Gaps    []*float64 `json:"gaps"`
	Primals []*float64 `json:"primals"`
	Passes  []float64  `json:"passes"`
}

// MarshalJSON writes the result without its solver: metric, folds, the
// curve (every value and its metric on every fold, the gaps and primal
// objectives reached), the chosen value and the final test metric; a value
// never computed (a standard error of one fold, a gap SSG does not have) is
// null or absent.
func (r *Result) MarshalJSON() ([]byte, error) {
	finite := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	all := func(x []float64) []*float64 {
		out := make([]*float64, len(x))
		for k, v := range x {
			out[k] = finite(v)
		}
		return out
	}
	point := func(p Point) jsonPoint {
		jp := jsonPoint{Lambda: p.Lambda, Mean: finite(p.Mean), StdErr: finite(p.StdErr), Folds: all(p.Folds), Gaps: all(p.Gaps), Primals: all(p.Primals), Passes: p.Passes}
		if r.Aux != "" {
			jp.Aux = &p.Aux
		}
		return jp
	}
	out := struct {
		Metric  string      `json:"metric"`
		Lower   bool        `json:"lower_is_better"`
		Aux     string      `json:"aux,omitempty"`
		Folds   int         `json:"folds"`
		HoldOut float64     `json:"hold_out,omitempty"`
		Warm    bool        `json:"warm"`
		Curve   []jsonPoint `json:"curve"`
		Chosen  jsonPoint   `json:"chosen"`
		Test    *float64    `json:"test,omitempty"`
		Seconds float64     `json:"seconds"`
	}{r.Metric, r.Lower, r.Aux, r.Folds, r.HoldOut, r.Warm, nil, point(r.Chosen()), finite(r.Test), r.Elapsed.Seconds()}
	for _, p := range r.Curve {
		out.Curve = append(out.Curve, point(p))
	}
	return json.Marshal(out)
}
