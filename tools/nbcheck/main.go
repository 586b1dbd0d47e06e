// Command nbcheck checks executed Jupyter notebooks (nbformat 4 JSON), as
// written by `jupyter nbconvert --to notebook --execute`.
//
// Usage:
//
//	nbcheck [flags] NOTEBOOK.ipynb...
//
// A notebook passes when
//
//   - it is nbformat 4 JSON whose kernelspec is -kernel (default "gonb");
//   - every code cell with source ran (its execution_count is set) and no
//     output is an error (output_type "error");
//   - every figure cell has at least one display_data or execute_result
//     output carrying one of the -mime types (default image/png and
//     text/html) with non-empty content. A figure cell is a code cell with a
//     line that is the marker comment `// figure` (optionally followed by a
//     description: `// figure: duality gap vs passes`); GoNB's HTML
//     rendering of an error does not count, nor does ssvmnb's note about a
//     figure not drawn (class fwstruct-omitted);
//   - every figure any cell displays draws data: a PNG image of fwstruct
//     says so in its tEXt chunk fwstruct:drawn (other PNG images, also
//     inside HTML, must not be of one color), an interactive chart on its
//     data-fwstruct-drawn attribute;
//   - no claim a cell displays is contradicted by the run shown: ssvmnb's
//     Claims write ssvmnb.ClaimFailedMarker into the output of a claim
//     that does not hold, and nbcheck prints the claim;
//   - every interactive chart inlines ECharts (unless -allow-cdn): one that
//     loads it from the network shows "ECharts could not be loaded"
//     offline;
//   - with -require-figure (default true), it has at least one figure cell.
//
// It prints one line per notebook and a closing "nbcheck: N passed, M failed"
// line; it exits 1 when a notebook fails, 2 on bad usage.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	kernel := flag.String("kernel", "gonb", "required kernelspec name (empty: any)")
	mimes := flag.String("mime", "image/png,text/html", "comma-separated MIME types a figure cell must display (one of them)")
	requireFigure := flag.Bool("require-figure", true, "fail a notebook without any `// figure` cell")
	allowCDN := flag.Bool("allow-cdn", false, "accept interactive charts that load ECharts from the network")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: nbcheck [flags] NOTEBOOK.ipynb...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	rules := Rules{Kernel: *kernel, RequireFigure: *requireFigure, AllowCDN: *allowCDN}
	for _, m := range strings.Split(*mimes, ",") {
		if m = strings.TrimSpace(m); m != "" {
			rules.FigureMIME = append(rules.FigureMIME, m)
		}
	}
	passed, failed := 0, 0
	for _, path := range flag.Args() {
		rep, err := CheckFile(path, rules)
		if err != nil {
			failed++
			fmt.Printf("FAIL %s\n", path)
			for _, e := range unwrapAll(err) {
				fmt.Printf("    %v\n", e)
			}
			continue
		}
		passed++
		fmt.Printf("ok   %s: %d code cells executed, %d figure cells displayed %s\n",
			path, rep.CodeCells, rep.FigureCells, strings.Join(rep.FigureMIMEs, ", "))
	}
	fmt.Printf("nbcheck: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// unwrapAll flattens an errors.Join tree into its leaves.
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unwrapAll(e)...)
		}
		return out
	}
	return []error{err}
}
