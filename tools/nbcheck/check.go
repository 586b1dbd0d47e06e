package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Rules configures CheckNotebook.
type Rules struct {
	// Kernel is the required kernelspec name; empty accepts any.
	Kernel string
	// FigureMIME lists the MIME types of which a figure cell must display
	// at least one.
	FigureMIME []string
	// RequireFigure fails a notebook that has no figure cell.
	RequireFigure bool
	// AllowCDN accepts interactive charts that load ECharts from the
	// network instead of inlining it (they are blank offline).
	AllowCDN bool
}

// Report summarizes a notebook that passed.
type Report struct {
	CodeCells   int      // code cells with source
	FigureCells int      // cells marked `// figure`
	FigureMIMEs []string // the figure MIME types seen, sorted
}

// figureMarker matches the marker line of a figure cell: `// figure`, alone
// or followed by a colon or a space and a description.
var figureMarker = regexp.MustCompile(`(?m)^[ \t]*//[ \t]*figure(?:[ \t]*$|[ \t:])`)

// IsFigureCell reports whether a cell source carries the `// figure` marker.
func IsFigureCell(source string) bool { return figureMarker.MatchString(source) }

// multiline is a notebook string: nbformat stores text either as one string
// or as a list of lines.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("want a string or a list of strings: %w", err)
	}
	*m = multiline(strings.Join(lines, ""))
	return nil
}

type notebook struct {
	NBFormat *int `json:"nbformat"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
	Cells []cell `json:"cells"`
}

type cell struct {
	CellType       string    `json:"cell_type"`
	Source         multiline `json:"source"`
	ExecutionCount *int      `json:"execution_count"`
	Outputs        []output  `json:"outputs"`
}

type output struct {
	OutputType string               `json:"output_type"`
	Name       string               `json:"name"` // stream name
	Text       multiline            `json:"text"`
	Data       map[string]multiline `json:"data"`
	EName      string               `json:"ename"`
	EValue     string               `json:"evalue"`
}

// CheckFile reads and checks one executed notebook.
func CheckFile(path string, r Rules) (Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Report{}, err
	}
	return CheckNotebook(b, r)
}

// CheckNotebook checks the JSON of one executed notebook; the error joins
// every problem found.
func CheckNotebook(b []byte, r Rules) (Report, error) {
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return Report{}, fmt.Errorf("not notebook JSON: %w", err)
	}
	var errs []error
	if nb.NBFormat == nil || *nb.NBFormat != 4 {
		errs = append(errs, errors.New("not nbformat 4"))
	}
	if r.Kernel != "" && nb.Metadata.Kernelspec.Name != r.Kernel {
		errs = append(errs, fmt.Errorf("kernelspec %q, want %q", nb.Metadata.Kernelspec.Name, r.Kernel))
	}
	var rep Report
	seen := map[string]bool{}
	for i, c := range nb.Cells {
		if c.CellType != "code" || strings.TrimSpace(string(c.Source)) == "" {
			continue
		}
		rep.CodeCells++
		where := fmt.Sprintf("cell %d (%s)", i, firstLine(string(c.Source)))
		if c.ExecutionCount == nil {
			errs = append(errs, fmt.Errorf("%s: not executed", where))
		}
		for _, o := range c.Outputs {
			if o.OutputType == "error" {
				errs = append(errs, fmt.Errorf("%s: error output %s: %s%s", where, o.EName, firstLine(o.EValue), errorDetails(c.Outputs)))
			}
			for _, e := range checkOutput(o, r) {
				errs = append(errs, fmt.Errorf("%s: %w", where, e))
			}
		}
		if !IsFigureCell(string(c.Source)) {
			continue
		}
		rep.FigureCells++
		found := ""
		var omitted []string
		for _, o := range c.Outputs {
			if o.OutputType != "display_data" && o.OutputType != "execute_result" {
				continue
			}
			if isErrorDisplay(o) {
				continue
			}
			if note := omittedNote(o); note != "" {
				omitted = append(omitted, note)
				continue
			}
			for _, m := range r.FigureMIME {
				if strings.TrimSpace(string(o.Data[m])) != "" {
					found = m
					break
				}
			}
			if found != "" {
				break
			}
		}
		if found == "" {
			why := describeOutputs(c.Outputs)
			if len(omitted) > 0 {
				why = " (only notes of figures not drawn: " + strings.Join(omitted, " | ") + ")"
			}
			errs = append(errs, fmt.Errorf("%s: figure cell displayed none of %s%s",
				where, strings.Join(r.FigureMIME, ", "), why))
			continue
		}
		seen[found] = true
	}
	if r.RequireFigure && rep.FigureCells == 0 {
		errs = append(errs, errors.New("no `// figure` cell"))
	}
	if len(errs) > 0 {
		return Report{}, errors.Join(errs...)
	}
	for m := range seen {
		rep.FigureMIMEs = append(rep.FigureMIMEs, m)
	}
	slices.Sort(rep.FigureMIMEs)
	return rep, nil
}

// isErrorDisplay reports whether o is GoNB's HTML rendering of a compile or
// `go get` error (styled with the gonb-err-* classes), which is no figure.
func isErrorDisplay(o output) bool {
	return strings.Contains(string(o.Data["text/html"]), "gonb-err-")
}

var (
	styleElement = regexp.MustCompile(`(?s)<style.*?</style>`)
	htmlTag      = regexp.MustCompile(`<[^>]*>`)
)

// errorDetails returns what a failed cell said: the last lines of its
// stderr (a panic) and the text of GoNB's HTML error displays (compile and
// `go get` errors), indented, one per line.
func errorDetails(outs []output) string {
	var lines []string
	for _, o := range outs {
		var text string
		switch {
		case o.OutputType == "stream" && o.Name == "stderr":
			text = string(o.Text)
		case isErrorDisplay(o):
			text = styleElement.ReplaceAllString(string(o.Data["text/html"]), "")
			text = html.UnescapeString(htmlTag.ReplaceAllString(text, ""))
		default:
			continue
		}
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimRight(l, " \t"); strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) > 20 {
		lines = append([]string{"..."}, lines[len(lines)-20:]...)
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n        " + strings.Join(lines, "\n        ")
}

// describeOutputs lists a cell's outputs, for error messages.
func describeOutputs(outs []output) string {
	if len(outs) == 0 {
		return " (no output)"
	}
	var parts []string
	for _, o := range outs {
		switch o.OutputType {
		case "stream":
			parts = append(parts, fmt.Sprintf("stream %s %q", o.Name, firstLine(string(o.Text))))
		case "display_data", "execute_result":
			var ms []string
			for m := range o.Data {
				ms = append(ms, m)
			}
			slices.Sort(ms)
			parts = append(parts, fmt.Sprintf("%s [%s]", o.OutputType, strings.Join(ms, " ")))
		default:
			parts = append(parts, o.OutputType)
		}
	}
	return " (outputs: " + strings.Join(parts, "; ") + ")"
}

// firstLine returns the first non-empty line of s, shortened.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 60 {
				l = l[:57] + "..."
			}
			return l
		}
	}
	return ""
}
