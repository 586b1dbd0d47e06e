package ssvmnb

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Table is a small table of results, shown as HTML in a notebook and as
// aligned text elsewhere.
type Table struct {
	Caption string
	Columns []string
	Rows    [][]string
}

// AddRow appends a row; values are formatted with Cell.
func (t *Table) AddRow(values ...any) {
	row := make([]string, len(values))
	for k, v := range values {
		row[k] = Cell(v)
	}
	t.Rows = append(t.Rows, row)
}

// Cell formats a table value: floats with 4 significant digits (NaN as
// "-"), everything else with %v.
func Cell(v any) string {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) {
			return "-"
		}
		return fmt.Sprintf("%.4g", x)
	case float32:
		return Cell(float64(x))
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// HTML renders the table.
func (t *Table) toHTML() string {
	var b strings.Builder
	b.WriteString(`<table style="border-collapse:collapse;font-family:sans-serif;font-size:13px">`)
	if t.Caption != "" {
		fmt.Fprintf(&b, `<caption style="font-weight:bold;padding:4px">%s</caption>`, html.EscapeString(t.Caption))
	}
	b.WriteString("<thead><tr>")
	for _, c := range t.Columns {
		fmt.Fprintf(&b, `<th style="border-bottom:2px solid #444;padding:3px 8px;text-align:right">%s</th>`, html.EscapeString(c))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(&b, `<td style="border-bottom:1px solid #ddd;padding:3px 8px;text-align:right">%s</td>`, html.EscapeString(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

// String renders the table as aligned text.
func (t *Table) String() string {
	width := make([]int, len(t.Columns))
	for k, c := range t.Columns {
		width[k] = len(c)
	}
	for _, r := range t.Rows {
		for k, c := range r {
			if k < len(width) && len(c) > width[k] {
				width[k] = len(c)
			}
		}
	}
	var b strings.Builder
	if t.Caption != "" {
		b.WriteString(t.Caption + "\n")
	}
	line := func(cells []string) {
		for k, c := range cells {
			if k >= len(width) {
				break
			}
			if k > 0 {
				b.WriteString("  ")
			}
			fmt.Fprintf(&b, "%*s", width[k], c)
		}
		b.WriteString("\n")
	}
	line(t.Columns)
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}

// Show displays the table in a notebook (nothing elsewhere).
func (t *Table) Show() { displayHTML(t.toHTML()) }
