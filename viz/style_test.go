package viz

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestMethodStyle(t *testing.T) {
	seen := map[Style]int{}
	for k := 0; k < 27; k++ {
		st := MethodStyle(k)
		if st.Color == refColor || st.Color == "#7f7f7f" {
			t.Errorf("style %d is gray, the color of reference lines", k)
		}
		if j, dup := seen[st]; dup {
			t.Errorf("styles %d and %d are both %+v", j, k, st)
		}
		seen[st] = k
		if st.Dash == Dashed || st.Dash == Dotted {
			t.Errorf("style %d uses %v, kept for companion curves", k, st.Dash)
		}
	}
	if MethodStyle(27) != MethodStyle(0) || MethodStyle(-3) != MethodStyle(3) {
		t.Error("MethodStyle does not cycle")
	}
	for d := Solid; d <= LongDash; d++ {
		if c := d.companion(); c == d {
			t.Errorf("companion of %v is itself", d)
		}
		if (d == Solid) != (d.pattern() == nil) || d.String() == "" {
			t.Errorf("%v: pattern %v", d, d.pattern())
		}
	}
	if Dash(9).String() != "Dash(9)" || Dash(9).valid() {
		t.Error("unknown dash")
	}
}

// TestReferenceLinesAndDashes: successive reference lines get distinct
// patterns, all gray; Dashed is shorthand for Dash: Dashed; unknown
// patterns are refused.
func TestReferenceLinesAndDashes(t *testing.T) {
	f := styledFigure()
	ls, err := f.lines()
	if err != nil {
		t.Fatal(err)
	}
	var refs []Dash
	for _, l := range ls {
		if l.ref {
			if l.color != refColor {
				t.Errorf("reference line %q in %s", l.name, l.color)
			}
			refs = append(refs, l.dash)
		}
	}
	if !reflect.DeepEqual(refs, []Dash{Dashed, Dotted, LongDash}) {
		t.Errorf("reference line patterns %v", refs)
	}
	if (Series{Dashed: true}).lineDash() != Dashed || (Series{Dashed: true, Dash: DashDot}).lineDash() != DashDot {
		t.Error("Dashed shorthand")
	}
	bad := &Figure{Series: []Series{{X: []float64{1}, Y: []float64{1}, Dash: 7}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "dash") {
		t.Errorf("unknown dash accepted: %v", err)
	}
	if err := (&Figure{Kind: Bars, Categories: []string{"a"}, Series: []Series{{Y: []float64{1}}}, Marks: []Mark{{X: 1}}}).Validate(); err == nil {
		t.Error("marks on a bar chart accepted")
	}
}

// TestEChartsStyles: the interactive option carries the dash patterns,
// the marks inside the data (as mark lines), the notes (as subtext) and
// the labels of blank heat-map cells.
func TestEChartsStyles(t *testing.T) {
	f := styledFigure()
	opt, err := f.EChartsOption()
	if err != nil {
		t.Fatal(err)
	}
	obj := parseOption(t, opt)
	types := map[string]string{}
	var marks []string
	for _, s := range obj["series"].([]interface{}) {
		m := s.(map[string]interface{})
		if ls, ok := m["lineStyle"].(map[string]interface{}); ok {
			b, _ := json.Marshal(ls["type"])
			types[m["name"].(string)] = string(b)
		}
		if m["type"] == "custom" && m["encode"].(map[string]interface{})["y"] != nil && len(m["encode"].(map[string]interface{})["y"].([]interface{})) == 0 {
			marks = append(marks, m["name"].(string))
		}
	}
	for name, want := range map[string]string{"solid": `"solid"`, "dashed": `"dashed"`, "dotted": `"dotted"`, "dash-dot": `[8,3.3333333333333335,2,3.3333333333333335]`, "long dash": `[14.666666666666666,4]`} {
		if types[name] != want {
			t.Errorf("line %q: type %s, want %s", name, types[name], want)
		}
	}
	if len(marks) != 1 || marks[0] != "fork: sampling uniform -> gap" {
		t.Errorf("marks %q", marks)
	}
	if sub := obj["title"].(map[string]interface{})["subtext"]; sub != "not shown: ssg (no duality gap)\nsecond note" {
		t.Errorf("subtext %q", sub)
	}
	heat := &Figure{Kind: HeatMap, Rows: []string{"a"}, Cols: []string{"b", "c"}, Cells: [][]float64{{1, math.NaN()}}, BlankLabel: "not reached"}
	hopt, err := heat.EChartsOption()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(hopt), `"formatter":"not reached"`) || !strings.Contains(string(hopt), `"data":[[1,0]]`) {
		t.Errorf("no label on the blank cell: %s", hopt)
	}
}
