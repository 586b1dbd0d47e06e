package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fwstruct/fwstruct/dist"
	"github.com/fwstruct/fwstruct/solver"
)

const roundsSummary = `Trains BCFW data-parallel (CoCoA with BCFW as its local solver): the examples dealt into --k partitions,
every round each partition runs --passes local passes of BCFW's block steps against the round's w on a worker,
and their changes are combined (--combine adding, CoCoA+'s safe local subproblem, or averaging). The certified
duality gap of a round's w is the sum of every block's gap at it, computed exactly every --gap-every rounds
(the last round's always). With a box (the method's "box" and the problem's own bounds, as the horses' graph
cuts need) the rounds combine v, the untruncated sum of the block vectors, and w is v truncated to the box.
The partitions' state and every round's v are stored under --state, a location every worker reaches;
--resume continues a run from its last complete round. Prints one line per round.`

type roundsCmd struct {
	method   string
	lambda   float64
	data     dataFlags
	k        int
	passes   float64
	combine  string
	seed     uint64
	rounds   int
	gap      float64
	gapEvery int
	workers  int
	state    string
	resume   bool
	trace    string
	output   string
}

func (c *roundsCmd) summary() string   { return roundsSummary }
func (c *roundsCmd) outputDir() string { return c.output }

func (c *roundsCmd) register(fs *flag.FlagSet) {
	fs.StringVar(&c.method, "method", "bcfw", "BCFW's settings as the JSON run.Encode writes (e.g. {\"method\": \"bcfw\", \"sampling\": \"gap\", \"seed\": 1}); its lambda is --lambda's")
	fs.Float64Var(&c.lambda, "lambda", 0.01, "the regularization lambda")
	c.data.register(fs, "loaded here and on the workers")
	fs.IntVar(&c.k, "k", 2, "the number of partitions K (1 <= K <= n)")
	fs.Float64Var(&c.passes, "passes", 1, "the local passes H of a partition a round (>= 1)")
	fs.StringVar(&c.combine, "combine", "adding", "how the partitions' changes are combined: adding (CoCoA+, sigma' = K) or averaging (CoCoA, 1/K)")
	fs.Uint64Var(&c.seed, "partition-seed", 1, "the seed of the assignment of the examples to partitions")
	fs.IntVar(&c.rounds, "rounds", 50, "stop after this many rounds in all (0: only --gap)")
	fs.Float64Var(&c.gap, "gap", 0, "stop once a certified duality gap is at most this (0: only --rounds)")
	fs.IntVar(&c.gapEvery, "gap-every", 1, "certify the gap every this many rounds (an oracle call an example); the last round's always")
	fs.IntVar(&c.workers, "workers", 0, "the goroutines of each partition's solver on its worker (0: one per CPU)")
	fs.StringVar(&c.state, "state", "", "the location of the run's state (a directory or gs://...), which every worker reaches; "+
		"default a temporary directory, removed at the end, for prism in-process, LOOPBACK and --runner local")
	fs.BoolVar(&c.resume, "resume", false, "continue the run at --state from its last complete round")
	fs.StringVar(&c.trace, "trace", "", "write the rounds to `FILE`, one JSON object a line")
	registerOutputDir(fs, &c.output)
}

// config returns the run's settings of the flags.
func (c *roundsCmd) config() (dist.Rounds, error) {
	cfg := dist.Rounds{K: c.k, Passes: c.passes, Seed: c.seed, MaxRounds: c.rounds, Gap: c.gap, GapEvery: c.gapEvery,
		Workers: c.workers, State: c.state, Resume: c.resume}
	switch c.combine {
	case "adding":
		cfg.Combine = solver.Adding
	case "averaging":
		cfg.Combine = solver.Averaging
	default:
		return cfg, fmt.Errorf("--combine %q: want adding or averaging", c.combine)
	}
	m, err := parseMethod(c.method)
	if err != nil {
		return cfg, err
	}
	b, ok := m.(solver.BCFW)
	if !ok {
		return cfg, fmt.Errorf("--method: the rounds run BCFW's block steps, not %s", m.Name())
	}
	if !(c.lambda > 0) || math.IsInf(c.lambda, 0) {
		return cfg, fmt.Errorf("--lambda %v: want a positive number", c.lambda)
	}
	cfg.Method = b.WithLambda(c.lambda).(solver.BCFW)
	if cfg.Data, err = c.data.spec(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func (c *roundsCmd) run(ctx context.Context, r dist.Runner, runnerName string, stdout, stderr io.Writer) error {
	cfg, err := c.config()
	if err != nil {
		return err
	}
	if cfg.State == "" {
		if b, ok := r.(dist.Beam); ok && !b.InProcess() {
			return errors.New("--state: the workers are not this process: give a location every worker and this program reach (a shared directory, gs://...)")
		}
		if c.resume {
			return errors.New("--resume needs --state, the location of the run to continue")
		}
		dir, err := os.MkdirTemp("", "fwstruct-rounds-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.State = dir
	}
	if c.trace != "" {
		f, err := os.OpenFile(c.trace, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		f.Close()
	}
	if runnerName == "" {
		runnerName = "prism"
	}
	start := time.Now()
	res, err := dist.RunRounds(ctx, r, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d rounds of %d partitions on %s in %.2f s (%s)\n", len(res.Trace)-res.From, cfg.K, runnerName, time.Since(start).Seconds(), res.Status)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "round\tpasses\toracle calls\tprimal\tdual\tgap\tseconds\t")
	num := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	var lines []string
	for _, p := range res.Trace {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%.3f\t\n", p.Round, num(p.Passes), p.OracleCalls, num(p.Primal), num(p.Dual), num(p.Gap), p.Seconds)
		b, err := json.Marshal(p)
		if err != nil {
			return err
		}
		lines = append(lines, string(b))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c.trace != "" {
		if err := writeFile(c.trace, []byte(strings.Join(lines, "\n")+"\n")); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
	}
	return nil
}
