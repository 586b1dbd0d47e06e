package papers

import (
	"encoding/json"
	"io"
	"math"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
)

// WriteTraces writes every run of the panel to path as JSON: the panel's
// lambda and best dual, and for every method one array of points per seed
// (pass, seconds, primal, dual, gap and the test metric under the key
// testKey, such as "test_error" or "test_aer"). A value the run did not
// compute (NaN) or an infinite one is left out of its point, never written
// as 0. The file is written atomically.
func (p *Figure1Panel) WriteTraces(path, testKey string) error {
	runs := map[string][][]map[string]float64{}
	for _, m := range p.Methods {
		for _, tr := range m.Traces {
			pts := make([]map[string]float64, len(tr))
			for k, q := range tr {
				pt := map[string]float64{"pass": q.Pass, "seconds": q.Seconds}
				for key, v := range map[string]float64{"primal": q.Primal, "dual": q.Dual, "gap": q.Gap, testKey: q.TestLoss} {
					if !math.IsNaN(v) && !math.IsInf(v, 0) {
						pt[key] = v
					}
				}
				pts[k] = pt
			}
			runs[m.Name] = append(runs[m.Name], pts)
		}
	}
	return atomicfile.WriteFile(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(map[string]any{"lambda": p.Lambda, "best_dual": p.BestDual, "runs": runs})
	})
}
