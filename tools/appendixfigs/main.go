// Command appendixfigs measures Fig. 3 (OCR-large) and Fig. 4 (CoNLL-2000)
// of the appendix of Lacoste-Julien et al. (2013): the stochastic solvers
// BCFW, BCFW-wavg, BCFW-tavg, SSG, SSG-wavg, SSG-tavg, SSG-avg and online
// EG (the paper runs online EG on OCR only), primal suboptimality (primal
// minus the best dual of any run at that lambda, App. F) and test error
// against effective passes, the median and min-max band over seeds. It
// runs them with papers.Figure1 (Figure1AppendixMethods) and writes, per
// experiment and lambda, NAME-objective-LAMBDA.png, NAME-error-LAMBDA.png,
// NAME-traces-LAMBDA.json and a table of the values at a few budgets, then
// checks the paper's qualitative findings on the runs (App. F):
//
//   - BCFW-tavg sometimes slightly better than BCFW-wavg, but fluctuating
//     more;
//   - SSG-avg's objective always worse than the other stochastic methods
//     (online EG aside);
//   - online EG substantially worse than the other stochastic methods on
//     OCR.
//
// Usage (FWSTRUCT_DATA locating ocr/ and conll2000/):
//
//	go run ./tools/appendixfigs [-exp fig3,fig4] [-out out/appendix] [-seeds 1,2] [-passes-ocr 20] [-passes-conll 3] [-lambdas 0.01,0.001,1/n]
//
// Fig. 4 drops online EG unless -conll-eg is given, as the paper does.
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
	exp := flag.String("exp", "fig3,fig4", "experiments to run: fig3 (OCR-large), fig4 (CoNLL-2000), comma-separated")
	flag.StringVar(&o.out, "out", "out/appendix", "folder of the figures, traces and tables")
	seeds := flag.String("seeds", "1,2", "seeds of the stochastic methods")
	lambdas := flag.String("lambdas", "0.01,0.001,1/n", "regularization parameters, one panel each (1/n: one over the training set size)")
	flag.Float64Var(&o.passesOCR, "passes-ocr", 20, "fig3: effective passes of every run")
	flag.Float64Var(&o.passesConll, "passes-conll", 3, "fig4: effective passes of every run")
	flag.BoolVar(&o.conllEG, "conll-eg", false, "fig4: also run online EG (the paper does not)")
	flag.Parse()
	var err error
	if o.seeds, err = figtool.ParseSeeds(*seeds); err != nil {
		fail(fmt.Errorf("-seeds: %w", err))
	}
	if o.lambdas, err = figtool.ParseList(*lambdas, parseLambda); err != nil {
		fail(fmt.Errorf("-lambdas: %w", err))
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fail(err)
	}
	ctx := context.Background()
	for _, e := range strings.Split(*exp, ",") {
		switch e {
		case "fig3", "fig4":
			err = runFigure(ctx, e, o, os.Stdout)
		default:
			err = fmt.Errorf("-exp: unknown experiment %q (want fig3 or fig4)", e)
		}
		if err != nil {
			fail(err)
		}
	}
}

type options struct {
	out                    string
	seeds                  []uint64
	lambdas                []float64 // 0 stands for 1/n
	passesOCR, passesConll float64
	conllEG                bool
}

// parseLambda parses a positive number or "1/n" (returned as 0).
func parseLambda(s string) (float64, error) {
	if s == "1/n" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) {
		return 0, fmt.Errorf("want a positive number or 1/n, got %q", s)
	}
	return v, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "appendixfigs:", err)
	os.Exit(1)
}
