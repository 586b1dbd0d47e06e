package factorgraph

import (
	"gonum.org/v1/gonum/mat"

	"github.com/fwstruct/fwstruct/inference/lp"
)

// LocalPolytope is localPolytope, for the benchmarks of the LP solver on
// the local polytopes of real data.
func (g *Graph) LocalPolytope() (*lp.Program, error) { return g.localPolytope() }

// LocalPolytopeProgram is localPolytopeProgram, for the comparison with
// gonum's lp.Simplex.
func (g *Graph) LocalPolytopeProgram() (A *mat.Dense, b []float64) { return g.localPolytopeProgram() }
