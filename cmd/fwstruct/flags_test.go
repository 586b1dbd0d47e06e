package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLIWithin runs the command line with a deadline, so that a run that
// would never stop fails the test instead of hanging it.
func runCLIWithin(t *testing.T, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var out, errOut strings.Builder
	code = execute(ctx, args, &out, &errOut)
	if ctx.Err() != nil {
		t.Fatalf("%v: still running after %v", args, limit)
	}
	return code, out.String(), errOut.String()
}

// TestRunsThatCannotStopAreRefused: stopping criteria that can never stop
// the run (NaN or infinite budgets, --gap-tol where no gap is computed) are
// refused at once, in one line naming the flags, before any data is loaded
// or anything is printed.
func TestRunsThatCannotStopAreRefused(t *testing.T) {
	base := []string{"train", "--data", "synthetic", "--synthetic-words", "20", "--quiet"}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--passes", "NaN"}, []string{"--passes", "NaN"}},
		{[]string{"--passes", "Inf"}, []string{"--passes", "+Inf"}},
		{[]string{"--passes", "-1"}, []string{"--passes"}},
		{[]string{"--passes", "0", "--gap-tol", "NaN"}, []string{"--gap-tol"}},
		{[]string{"--passes", "0"}, []string{"at least one of --passes, --gap-tol or --time"}},
		{[]string{"--time", "-1s"}, []string{"--time"}},
		{[]string{"--passes", "0", "--gap-tol", "0.1", "--method", "ssg"}, []string{"ssg", "--gap-tol can never stop it", "--passes or --time"}},
		{[]string{"--passes", "0", "--gap-tol", "0.1", "--gap-every", "inf"}, []string{"--gap-every inf", "--gap-tol can never stop the run"}},
		{[]string{"--passes", "20", "--gap-tol", "0.1", "--gap-every", "inf"}, []string{"--gap-tol can never stop the run"}},
		{[]string{"--early-check", "0.8"}, []string{"--early-check needs --gap-tol"}},
	}
	for _, tc := range cases {
		code, out, errOut := runCLIWithin(t, 30*time.Second, append(base, tc.args...)...)
		ok := code == 1 && out == "" && strings.Count(errOut, "\n") == 1 && !strings.Contains(errOut, "Stop.")
		for _, w := range tc.want {
			ok = ok && strings.Contains(errOut, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line saying %q", tc.args, code, out, errOut, tc.want)
		}
	}
	// --gap-every inf with an early check or observe-only evaluations can
	// certify the gap: accepted, and it stops there.
	for _, extra := range [][]string{{"--early-check", "0.9"}, {"--trace-every", "1"}} {
		args := append(append(base, "--passes", "0", "--gap-tol", "0.5", "--gap-every", "inf", "--lambda", "0.1"), extra...)
		if code, out, errOut := runCLIWithin(t, time.Minute, args...); code != 0 || !strings.Contains(out, "done (converged)") {
			t.Errorf("%v: exit %d, %s %s", extra, code, out, errOut)
		}
	}
}

// TestZeroMeansWhatTheHelpSays: a flag whose 0 would silently become a
// default in the library is rejected in the flag's name; those whose 0
// means something (off, none, one per CPU) say so in their help.
func TestZeroMeansWhatTheHelpSays(t *testing.T) {
	train := []string{"train", "--data", "synthetic", "--synthetic-words", "20", "--passes", "1", "--quiet"}
	path := []string{"path", "--data", "synthetic", "--synthetic-words", "20", "--quiet"}
	cases := []struct {
		args []string
		want string
	}{
		{append(train, "--method", "recommended", "--cache-size", "0"), "--cache-size must be >= 1, got 0"},
		{append(train, "--method", "cp", "--cp-tol", "0"), "--cp-tol must be positive"},
		{append(train, "--method", "mp-bcfw", "--mp-n", "-1"), "--mp-n must be >= 0, got -1"},
		{append(train, "--method", "kernel", "--kernel-cache", "-1"), "--kernel-cache must be >= 0 (0: none)"},
		{append(train, "--method", "recommended", "--cache-size", "-1"), "--cache-size must be >= 1, got -1"},
		{append(train, "--method", "recommended", "--cache-f", "0"), "--cache-f must be positive"},
		{append(train, "--method", "recommended", "--cache-nu", "0"), "--cache-nu must be positive"},
		{append(train, "--method", "recommended", "--gap-every", "0"), "--gap-every must be positive (inf: never)"},
		{append(train, "--gap-every", "-1"), "--gap-every must be >= 0 (inf: never; 0: the chosen method's)"},
		{append(train, "--trace-every", "-1"), "--trace-every must be finite and >= 0 (0: none)"},
		{append(train, "--lambda", "0"), "--lambda must be positive"},
		{append(train, "--workers", "-1"), "--workers must be >= 0 (0: one per CPU)"},
		{append(train, "--synthetic-words", "0"), "--synthetic-words must be >= 1"},
		{append(train, "--synthetic-noise", "0"), "--synthetic-noise must be in (0, 0.5]"},
		{append(train, "--checkpoint", filepath.Join(t.TempDir(), "c"), "--checkpoint-every", "0"), "--checkpoint-every"},
		{append(train, "--method", "fast"), `--method "fast": unknown method`},
		{append(train, "--checkpoint-every", "10"), "--checkpoint-every needs --checkpoint FILE"},
		{append(path, "--epsilon", "0"), "--epsilon must be positive"},
		{append(path, "--kappa", "0"), "--kappa must be in (0, 1)"},
		{append(path, "--lambda-min", "0"), "--lambda-min must be positive"},
		{append(path, "--max-passes", "0"), "--max-passes must be positive"},
		{append(path, "--max-breakpoints", "0"), "--max-breakpoints must be >= 1"},
		{[]string{"report", "--width", "0", "x.json"}, "--width must be between 100 and 10000"},
		{[]string{"download", "--timeout", "0s", "ocr"}, "--timeout must be > 0"},
	}
	for _, tc := range cases {
		code, _, errOut := runCLIWithin(t, 30*time.Second, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args[len(tc.args)-2:], code, errOut, tc.want)
		}
	}
	// A value that is not one of the flag's is an error of the command line.
	if code, _, errOut := runCLIWithin(t, 30*time.Second, append(train, "--progress", "maybe")...); code != 2 || !strings.Contains(errOut, `--progress "maybe": want auto, on or off`) {
		t.Errorf("--progress maybe: exit %d, stderr %q", code, errOut)
	}
	// The help of every command (and method) says what each meaningful
	// zero means.
	for cmd, wants := range map[string][]string{
		"train":                 {"0: no pass budget", "0: off", "0: none", "0: one per CPU"},
		"path --method bcfw":    {"0: one per CPU", "0: none"},
		"train --method cp":     {"0: no cache", "0: none"},
		"train --method kernel": {"0: none"},
	} {
		_, _, help := runCLI(t, append(strings.Fields(cmd), "-h")...)
		for _, w := range wants {
			if !strings.Contains(help, w) {
				t.Errorf("%s -h does not say %q", cmd, w)
			}
		}
	}
}

// TestErrorsAreOneLine: errors are one line, quote long values only in
// part, and never name Go types.
func TestErrorsAreOneLine(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("q", 5000)
	model := writeTestFile(t, filepath.Join(dir, "m.json"), []byte(`{"format":"`+long+`"}`))
	badType := writeTestFile(t, filepath.Join(dir, "t.json"), []byte(`[{"pass": "abc"}]`))
	truncated := writeTestFile(t, filepath.Join(dir, "u.json"), []byte(`[{"pass": 1`))
	cases := [][]string{
		{"train", "--method", long},
		{"train", "--data", "synthetic", "--box-lower", long + "=1"},
		{"train", "--data", "synthetic", "--csv-comma", long},
		{"eval", "--model", model},
		{"report", badType},
		{"report", truncated},
	}
	for _, args := range cases {
		code, _, errOut := runCLIWithin(t, 30*time.Second, args...)
		if code != 1 || strings.Count(errOut, "\n") != 1 || len(errOut) > 400 || strings.Contains(errOut, "Go struct") || strings.Contains(errOut, "tracePointJSON") {
			t.Errorf("%v: exit %d, stderr (%d bytes) %q", args[:2], code, len(errOut), errOut)
		}
	}
}

// TestErrorLine: joined errors become one line, long quoted values are cut
// and short ones, and quotes that are not Go strings, are left alone.
func TestErrorLine(t *testing.T) {
	long := strings.Repeat("x", 100)
	cases := []struct{ in, want string }{
		{"a\nb", "a; b"},
		{`value "` + long + `" bad`, `value "` + long[:40] + `"... bad`},
		{`short "ok" and "` + long + `"`, `short "ok" and "` + long[:40] + `"...`},
		{`unbalanced " quote`, `unbalanced " quote`},
	}
	for _, tc := range cases {
		if got := errorLine(errorString(tc.in)); got != tc.want {
			t.Errorf("errorLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
