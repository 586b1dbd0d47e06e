package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	fwmodel "github.com/fwstruct/fwstruct/model"
	"github.com/fwstruct/fwstruct/solver"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// FuzzParseTrace: the trace reader returns an error or a non-empty trace
// with non-negative counters, from which every figure of a report can be
// built; what it accepts, written again, reads back the same.
func FuzzParseTrace(f *testing.F) {
	pt := solverrun.Point{Pass: 2, OracleCalls: 40, Steps: 40, Seconds: 0.1, Primal: 1, Dual: 0.5, Gap: 0.5,
		GapEstimate: 0.6, TestLoss: 0.3, TrainLoss: math.NaN(), PrimalAvg: math.NaN(), DualAvg: math.NaN(), GapAvg: math.NaN(),
		Refresh: true, Lambda: 0.01, ChiGap: 0.9, ChiCurvature: 1, PredictedSpeedup: 0.7, ChiGapEstimate: math.NaN(),
		CacheHits: 3, CacheMisses: 4, ActiveMean: 1.5, CacheMean: 2}
	good, _ := json.Marshal([]solverrun.Point{pt, pt})
	f.Add(good)
	f.Add([]byte(`[{"pass":0,"primal":1,"dual":0,"gap":1,"gap_estimate":null}]`))
	f.Add([]byte(`[{"pass":-1}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"pass":"x"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		trace, err := parseTrace(b)
		if err != nil {
			return
		}
		if len(trace) == 0 {
			t.Fatal("accepted an empty trace")
		}
		for _, fig := range reportFigures([]viz.Run{{Name: "fuzz", Trace: trace}}) {
			fig.fig.Validate()
		}
		again, err := json.Marshal(trace)
		if err != nil {
			t.Fatal(err)
		}
		trace2, err := parseTrace(again)
		if err != nil {
			t.Fatalf("a trace written again is refused: %v", err)
		}
		if again2, _ := json.Marshal(trace2); !bytes.Equal(again, again2) {
			t.Fatalf("trace changed when read back:\n%s\n%s", again, again2)
		}
	})
}

// FuzzParseBounds: the box-flag parser returns an error or d bounds, none
// NaN, each the default or a value of the spec; errors are one short line.
func FuzzParseBounds(f *testing.F) {
	for _, s := range []string{"*=-1, 2-3=0,5=2.5", "0-99=0,150=-1", "1=NaN", "3-1=0", "-1=0", "*=inf", "1-=2", "=", ",,", "99999999999999999999=1"} {
		f.Add(s, uint16(200), 0.0)
	}
	f.Fuzz(func(t *testing.T, spec string, d uint16, def float64) {
		n := 1 + int(d)%1000
		if math.IsNaN(def) {
			def = 0
		}
		b, err := parseBounds(spec, n, def)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 300 {
				t.Fatalf("error %q", msg)
			}
			return
		}
		if len(b) != n {
			t.Fatalf("%d bounds for dimension %d", len(b), n)
		}
		for j, v := range b {
			if math.IsNaN(v) || (v != def && !strings.Contains(spec, "=")) {
				t.Fatalf("bound %d = %v from %q", j, v, spec)
			}
		}
	})
}

// FuzzCheckpointHeader: the header reader of checkpoint files returns an
// error or a header of the right format whose run decodes, and leaves the
// reader after it.
func FuzzCheckpointHeader(f *testing.F) {
	rec, err := fwmodel.NewRecord(solver.BCFW{Lambda: 0.1}, nil, datasets.Spec{Name: "synthetic"}, 1)
	if err != nil {
		f.Fatal(err)
	}
	h, err := encodeHeader(checkpointHeader{Record: rec, Stop: stopRecord{Passes: 5}, Passes: 2})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append(h, []byte("\nSTATE")...))
	f.Add([]byte("{\"format\":\"fwstruct-checkpoint/2\"}\n"))
	f.Add([]byte(strings.Repeat("x", 5000) + "\n"))
	f.Add([]byte("\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		hd, err := readCheckpointHeader(r)
		if err != nil {
			return
		}
		if hd.Format != checkpointFormat || hd.method == nil {
			t.Fatalf("accepted format %q, method %v", hd.Format, hd.method)
		}
		rest := b[bytes.IndexByte(b, '\n')+1:]
		got, _ := io.ReadAll(r)
		if !bytes.Equal(got, rest) {
			t.Fatalf("reader left at %q, want %q", got, rest)
		}
	})
}
