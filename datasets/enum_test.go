package datasets

import (
	"fmt"
	"testing"
)

// TestOptionNames: every value of the option types parses back from its
// String, other names are rejected, and a value without a name prints as
// Type(n).
func TestOptionNames(t *testing.T) {
	type option struct {
		values []fmt.Stringer
		parse  func(string) (fmt.Stringer, error)
		bad    string
		odd    fmt.Stringer
		oddStr string
	}
	options := []option{
		{[]fmt.Stringer{IndexAuto, IndexZero, IndexOne},
			func(s string) (fmt.Stringer, error) { return ParseIndexBase(s) }, "2", IndexBase(9), "IndexBase(9)"},
		{[]fmt.Stringer{HeaderAuto, HeaderYes, HeaderNo},
			func(s string) (fmt.Stringer, error) { return ParseCSVHeader(s) }, "maybe", CSVHeader(4), "CSVHeader(4)"},
		{[]fmt.Stringer{ScaleNone, ScaleMinMax, ScaleStandardize},
			func(s string) (fmt.Stringer, error) { return ParseScaling(s) }, "zscore", Scaling(-1), "Scaling(-1)"},
	}
	for _, o := range options {
		for _, v := range o.values {
			if got, err := o.parse(v.String()); err != nil || got != v {
				t.Errorf("parse(%q) = %v, %v", v.String(), got, err)
			}
		}
		if _, err := o.parse(o.bad); err == nil {
			t.Errorf("parse(%q) accepted", o.bad)
		}
		if s := o.odd.String(); s != o.oddStr {
			t.Errorf("String = %q, want %q", s, o.oddStr)
		}
	}
	if _, err := ParseScaling("log"); err == nil || err.Error() != `unknown scaling "log" (want none, minmax or standardize)` {
		t.Errorf("error %v", err)
	}
}
