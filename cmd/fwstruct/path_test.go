package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPathStoppedEarlyIsHonest: a path that stops before its end (the
// breakpoint bound, an epsilon too small to ever get anywhere, an
// interruption) exits with an error, still writes what it computed, and
// says how far it goes with a computed lambda: "lower_end" is never 0 and
// nothing prints "down to lambda 0"; a Delta never computed is null.
func TestPathStoppedEarlyIsHonest(t *testing.T) {
	base := []string{"path", "--data", "synthetic", "--synthetic-words", "20", "--epsilon", "0.3", "--step", "pairwise"}
	cases := []struct {
		name      string
		args      []string
		cancelAt  int // cancel after this many progress lines (0: never)
		wantErr   string
		wantDelta bool
	}{
		{"max-breakpoints", []string{"--max-breakpoints", "10"}, 0, "after 10 breakpoints (--max-breakpoints)", true},
		{"epsilon-1e-12", []string{"--epsilon", "1e-12"}, 0, "a larger epsilon (now 1e-12) takes larger steps", true},
		{"interrupted", nil, 3, "interrupted", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "path.json")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			stdout := &hookWriter{fn: func(s string) {
				if tc.cancelAt > 0 && strings.Count(s, "lambda ") >= tc.cancelAt {
					cancel()
				}
			}}
			var stderr bytes.Buffer
			args := append(append(base, tc.args...), "--out", out)
			if tc.cancelAt == 0 {
				args = append(args, "--quiet")
			}
			code := execute(ctx, args, stdout, &stderr)
			if code != 1 || !strings.Contains(stderr.String(), tc.wantErr) || strings.Count(stderr.String(), "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want one line saying %q", code, stderr.String(), tc.wantErr)
			}
			if s := stdout.buf.String(); strings.Contains(s, "lambda 0 ") || strings.Contains(s, "lambda 0;") || !strings.Contains(s, "stopped early") {
				t.Fatalf("stdout %q", s)
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				Complete    bool     `json:"complete"`
				Stopped     string   `json:"stopped"`
				LowerEnd    *float64 `json:"lower_end"`
				Breakpoints []struct {
					Lambda float64  `json:"lambda"`
					Delta  *float64 `json:"delta"`
				} `json:"breakpoints"`
			}
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatal(err)
			}
			last := res.Breakpoints[len(res.Breakpoints)-1]
			if res.Complete || res.Stopped == "" || res.LowerEnd == nil || !(*res.LowerEnd > 0 && *res.LowerEnd <= last.Lambda) {
				t.Fatalf("complete %v, stopped %q, lower end %v, last breakpoint %v", res.Complete, res.Stopped, res.LowerEnd, last.Lambda)
			}
			if (last.Delta != nil) != tc.wantDelta || tc.wantDelta != (*res.LowerEnd < last.Lambda) {
				t.Fatalf("last delta %v, lower end %v, last breakpoint %v", last.Delta, *res.LowerEnd, last.Lambda)
			}
		})
	}
}
