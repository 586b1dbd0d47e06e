// Command alignfigs measures the word-alignment experiments on the
// Hansards data (Taskar, Lacoste-Julien and Klein 2005; Lacoste-Julien et
// al. 2013, Fig. 1f and Fig. 5) and writes their figures:
//
//   - aer: the matching model trained on gold pairs 1-100 and tested on
//     pairs 101-447 (the paper's 347 gold test pairs), lambda chosen on
//     held-out gold pairs (trained on 1-75, AER measured on 76-100), next
//     to the baselines computed on the same split (the Dice matching with
//     a threshold tuned on pairs 1-100, the intersected IBM Model 1 and
//     diagonal IBM Model 2 alignments); it prints the table and draws the
//     alignment grids of the first test pairs (grid-ID.png);
//   - fig5: BCFW, BCFW-wavg, SSG, SSG-wavg, batch FW and the cutting-plane
//     method at lambda = 0.001 (-lambdas) on a 5,000-pair training set
//     whose labels are NOT human: the intersection of the two diagonal IBM
//     Model 2 Viterbi alignments (datasets.HansardsIntersected; the
//     paper's 5,000 labelled pairs are not public), primal suboptimality
//     (primal minus the best dual of any run) and test AER on the 347 gold
//     test pairs against effective passes, the median and the min-max band
//     over seeds for the stochastic methods (fig5-objective-LAMBDA.png,
//     fig5-aer-LAMBDA.png, fig5-traces-LAMBDA.json and a table).
//
// Usage (FWSTRUCT_DATA locating hansards/):
//
//	go run ./tools/alignfigs [-exp aer,fig5] [-out out/align] [-passes 50] [-seeds 1,2,3] [-lambdas 0.001]
//
// The aer experiment takes about 30 s of CPU time, fig5 with the defaults
// about 5 minutes (measured on a shared 2-core machine: a pass over the
// 5,000 pairs costs a fraction of a second, and every method is
// evaluated at every pass; the process needs about 1 GB of memory).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/internal/figtool"
)

func main() {
	var o options
	exp := flag.String("exp", "aer,fig5", "experiments to run: aer, fig5 (comma-separated)")
	flag.StringVar(&o.out, "out", "out/align", "folder of the figures, traces and tables")
	flag.StringVar(&o.path, "data", "", "the Hansards folder (default: $FWSTRUCT_DATA/hansards, then the user cache)")
	flag.Float64Var(&o.passes, "passes", 50, "fig5: effective passes of every run")
	seeds := flag.String("seeds", "1,2,3", "fig5: seeds of the stochastic methods")
	lambdas := flag.String("lambdas", "0.001", "fig5: regularization parameters, one figure each")
	flag.IntVar(&o.intersected, "n", 5000, "fig5: training pairs of the intersected training set")
	flag.Parse()
	var err error
	if o.seeds, err = figtool.ParseSeeds(*seeds); err != nil {
		fail(fmt.Errorf("-seeds: %w", err))
	}
	if o.lambdas, err = figtool.ParseList(*lambdas, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }); err != nil {
		fail(fmt.Errorf("-lambdas: %w", err))
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fail(err)
	}
	ctx := context.Background()
	for _, e := range strings.Split(*exp, ",") {
		switch e {
		case "aer":
			err = runAER(ctx, o, os.Stdout)
		case "fig5":
			err = runFig5(ctx, o, os.Stdout)
		default:
			err = fmt.Errorf("-exp: unknown experiment %q (want aer or fig5)", e)
		}
		if err != nil {
			fail(err)
		}
	}
}

type options struct {
	out, path   string
	passes      float64
	seeds       []uint64
	lambdas     []float64
	intersected int
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "alignfigs:", err)
	os.Exit(1)
}
