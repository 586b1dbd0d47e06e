package main

import (
	"strings"
	"testing"
)

func TestIsFigureCell(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"// figure\n%%\nplot()", true},
		{"  // figure: gap vs passes\n%%", true},
		{"//figure\n", true},
		{"%%\nx := 1 // figure", false},   // not a line of its own
		{"// figures are below\n", false}, // another word
		{"// figured out\n", false},
		{"/* figure */", false},
		{"%%\nfmt.Println(1)", false},
	} {
		if got := IsFigureCell(tc.src); got != tc.want {
			t.Errorf("IsFigureCell(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

var defaultRules = Rules{Kernel: "gonb", FigureMIME: []string{"image/png", "text/html"}, RequireFigure: true}

// nb wraps cells into a gonb notebook.
func nb(cells ...string) []byte {
	return []byte(`{"nbformat": 4, "nbformat_minor": 5,
 "metadata": {"kernelspec": {"name": "gonb", "display_name": "Go (gonb)", "language": "go"}},
 "cells": [` + strings.Join(cells, ",") + `]}`)
}

const (
	setupCell  = `{"cell_type": "code", "execution_count": 1, "source": ["!*go mod edit ...\n"], "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}]}`
	mdCell     = `{"cell_type": "markdown", "source": "// figure in markdown does not count"}`
	htmlFigure = `{"cell_type": "code", "execution_count": 2, "source": ["// figure\n", "%%\n", "gonbui.DisplayHTML(t)"],
  "outputs": [{"output_type": "display_data", "data": {"text/html": ["<table>", "</table>"]}, "metadata": {}}]}`
	// a 2x1 PNG image, one black and one white pixel
	pngFigure = `{"cell_type": "code", "execution_count": 3, "source": "// figure: gap\n%%\ngonbui.DisplayPNG(b)",
  "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAAAAADRSSBWAAAAC0lEQVR4nGNg+A8AAQIBAEK+vGgAAAAASUVORK5CYII=", "text/plain": "x"}, "metadata": {}}]}`
	textOnlyFigure = `{"cell_type": "code", "execution_count": 4, "source": "// figure\n%%\nfmt.Println(1)",
  "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}]}`
	errorHTMLFigure = `{"cell_type": "code", "execution_count": 5, "source": "// figure\n%%\nbad()",
  "outputs": [{"output_type": "display_data", "data": {"text/html": "<div class=\"gonb-err-location\">undefined: bad</div>"}, "metadata": {}}]}`
	errorCell = `{"cell_type": "code", "execution_count": 6, "source": "%%\npanic(1)",
  "outputs": [{"output_type": "error", "ename": "ERROR", "evalue": "exit status 2", "traceback": []}]}`
	unexecuted = `{"cell_type": "code", "execution_count": null, "source": "%%\nfmt.Println(1)", "outputs": []}`
	emptyCode  = `{"cell_type": "code", "execution_count": null, "source": "", "outputs": []}`
)

func TestCheckNotebook(t *testing.T) {
	for _, tc := range []struct {
		name    string
		json    []byte
		rules   Rules
		wantErr string // "" means pass
		figures int
	}{
		{"html and png figures", nb(setupCell, mdCell, htmlFigure, pngFigure, emptyCode), defaultRules, "", 2},
		{"figure without rich output", nb(setupCell, textOnlyFigure), defaultRules, "figure cell displayed none of image/png, text/html (outputs: stream stdout", 0},
		{"gonb error html is no figure", nb(setupCell, errorHTMLFigure), defaultRules, "figure cell displayed none", 0},
		{"error output", nb(setupCell, htmlFigure, errorCell), defaultRules, "error output ERROR: exit status 2", 0},
		{"not executed", nb(htmlFigure, unexecuted), defaultRules, "not executed", 0},
		{"no figure cell", nb(setupCell), defaultRules, "no `// figure` cell", 0},
		{"no figure cell allowed", nb(setupCell), Rules{Kernel: "gonb", FigureMIME: []string{"text/html"}}, "", 0},
		{"png only", nb(htmlFigure), Rules{FigureMIME: []string{"image/png"}}, "figure cell displayed none of image/png", 0},
		{"wrong kernel", []byte(`{"nbformat": 4, "metadata": {"kernelspec": {"name": "python3"}}, "cells": [` + htmlFigure + `]}`), defaultRules, `kernelspec "python3", want "gonb"`, 0},
		{"nbformat 3", []byte(`{"nbformat": 3, "metadata": {"kernelspec": {"name": "gonb"}}, "cells": [` + htmlFigure + `]}`), defaultRules, "not nbformat 4", 0},
		{"not json", []byte(`{"cells": [`), defaultRules, "not notebook JSON", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := CheckNotebook(tc.json, tc.rules)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if rep.FigureCells != tc.figures {
					t.Errorf("FigureCells = %d, want %d", rep.FigureCells, tc.figures)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestCheckNotebookReportsEveryProblem(t *testing.T) {
	_, err := CheckNotebook(nb(unexecuted, textOnlyFigure, errorCell), defaultRules)
	if err == nil {
		t.Fatal("want an error")
	}
	if n := len(unwrapAll(err)); n != 3 {
		t.Errorf("got %d problems, want 3: %v", n, err)
	}
}

func TestErrorDetails(t *testing.T) {
	panicCell := `{"cell_type": "code", "execution_count": 7, "source": "%%\nvar x []int\nfmt.Println(x[3])",
  "outputs": [{"output_type": "stream", "name": "stderr", "text": ["panic: runtime error: index out of range [3] with length 0\n", "\n", "goroutine 1 [running]:\n"]},
   {"output_type": "error", "ename": "ERROR", "evalue": "exit status 2", "traceback": []}]}`
	compileCell := `{"cell_type": "code", "execution_count": 8, "source": "%%\nbad()",
  "outputs": [{"output_type": "display_data", "data": {"text/html": "<style>.gonb-err-location { color: red; }</style><div class=\"gonb-err-location\">./main.go:29:1: undefined: bad &amp; more</div>"}, "metadata": {}},
   {"output_type": "error", "ename": "ERROR", "evalue": "failed to run go build", "traceback": []}]}`
	_, err := CheckNotebook(nb(htmlFigure, panicCell, compileCell), defaultRules)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"panic: runtime error: index out of range", "undefined: bad & more"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "color: red") {
		t.Errorf("error %q contains the style element", err)
	}
}
