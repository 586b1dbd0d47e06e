package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPage(t *testing.T) {
	page, err := Page([]byte(`var echarts = {}; // "</script>" inside`), sampleOption())
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if !strings.Contains(s, `var echarts = {}; // "<\/script>" inside`) {
		t.Error("library not inlined, or </script not escaped")
	}
	if strings.Count(s, "</script>") != 2 {
		t.Errorf("want 2 script elements closed, page:\n%s", s)
	}
	i := strings.Index(s, "chart.setOption(")
	j := strings.Index(s[i:], ");\n")
	var opt map[string]any
	if err := json.Unmarshal([]byte(s[i+len("chart.setOption("):i+j]), &opt); err != nil {
		t.Fatalf("option is not JSON: %v", err)
	}
	if opt["animation"] != false || len(opt["series"].([]any)) != 3 {
		t.Errorf("option: animation %v, %d series", opt["animation"], len(opt["series"].([]any)))
	}

	broken, err := Page(nil, sampleOption())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(broken), "<script>") != 1 || !strings.Contains(string(broken), "echarts.init") {
		t.Error("the broken page must keep the chart script and leave out the library")
	}
}

func TestControls(t *testing.T) {
	for _, name := range []string{"blank", "missing", "error"} {
		if !strings.HasPrefix(string(controls[name]), "<!DOCTYPE html>") {
			t.Errorf("control %q is not an HTML page", name)
		}
	}
}
