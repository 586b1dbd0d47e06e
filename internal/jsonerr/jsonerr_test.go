package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRestate: the errors of encoding/json name the byte, the field and the
// kind of value wanted, never a Go type.
func TestRestate(t *testing.T) {
	var v struct {
		Gap   float64  `json:"gap"`
		Names []string `json:"names"`
	}
	for _, tc := range []struct{ in, want string }{
		{`{"gap":1`, "truncated JSON"},
		{`{"gap" 1}`, "not valid JSON at byte 8"},
		{`{"gap":"x"}`, `field "gap" holds a JSON string, want a number`},
		{`{"names":3}`, `field "names" holds a JSON number, want an array`},
		{`[1]`, "the top level holds a JSON array, want an object"},
	} {
		err := Restate(json.NewDecoder(strings.NewReader(tc.in)).Decode(&v))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "float64") {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}
