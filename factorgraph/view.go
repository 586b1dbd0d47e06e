package factorgraph

import (
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
)

// ModelOf returns the model behind a problem of this package (an Exact,
// Relaxed or Rounded view, or the assignment view of a MultiLabel model),
// or an error naming the problem's type for any other problem.
func ModelOf(p oracles.Problem) (*Model, error) {
	if v, ok := p.(interface{ Model() *Model }); ok {
		return v.Model(), nil
	}
	return nil, fmt.Errorf("a factor-graph problem is needed (yeast or a MULAN dataset), not %T", p)
}
