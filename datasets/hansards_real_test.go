package datasets

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/align"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

var (
	realHansardsOnce sync.Once
	realHansards     *Hansards
	realHansardsErr  error
)

// loadRealHansards loads the real data once per test binary (about 5 s).
func loadRealHansards(t *testing.T) *Hansards {
	t.Helper()
	dir := realdata.Dir(t)
	if _, err := os.Stat(filepath.Join(dir, "hansards", HansardsEnglish)); err != nil {
		t.Skipf("real data not found: %s", err)
	}
	realHansardsOnce.Do(func() {
		realHansards, realHansardsErr = LoadHansards(HansardsOptions{Path: filepath.Join(dir, "hansards")})
	})
	if realHansardsErr != nil {
		t.Fatal(realHansardsErr)
	}
	return realHansards
}

func TestHansardsReal(t *testing.T) {
	h := loadRealHansards(t)
	sure, possible := 0, 0
	for _, p := range h.Gold {
		sure += len(p.Sure)
		possible += len(p.Possible)
	}
	// The shared task's numbers: 447 pairs, 4,038 S and 13,400 P lines in
	// test.wa.nonullalign; 10,447 lines of 10k.fr-en.gz, the first 447
	// repeating the gold pairs in lower case.
	if len(h.Gold) != 447 || sure != 4038 || possible != 13400 || h.GoldCopies != 447 || h.Unaligned != 10000 {
		t.Fatalf("%d gold pairs, %d sure and %d possible links, %d copies, %d unaligned pairs", len(h.Gold), sure, possible, h.GoldCopies, h.Unaligned)
	}
	if h.Train.Len() != 100 || h.Test.Len() != 347 || h.TestPairs[0].ID != 101 || h.Train.Dim() != 86 {
		t.Fatalf("%d training and %d test pairs (first test id %d), d = %d", h.Train.Len(), h.Test.Len(), h.TestPairs[0].ID, h.Train.Dim())
	}
	// Sentence 62 holds the Latin-1 guillemets of test.e.
	if w := h.Gold[61].English; w[len(w)-2] != "»" {
		t.Errorf("sentence 62 ends with %q, want the guillemet decoded from Latin-1", w[len(w)-4:])
	}
	oraclestest.Conformance(t, h.Train, oraclestest.CheckOptions{Seed: 1, Examples: 40, Scale: 0.3})
	// Unsupervised statistics worth their name: frequent translations.
	for _, wp := range [][2]string{{"minister", "ministre"}, {"government", "gouvernement"}, {"canada", "canada"}} {
		if d := h.Model.Sentence(wp[:1], wp[1:]).Dice[0]; d < 0.6 {
			t.Errorf("Dice(%s, %s) = %v, want > 0.6", wp[0], wp[1], d)
		}
	}
}

// diagonalAlignment links English word j of every pair to French word
// round((j + 1/2) m/n - 1/2): an aligner that reads nothing but the
// lengths.
func diagonalAlignment(pairs []align.Pair) [][]int32 {
	out := make([][]int32, len(pairs))
	for i, p := range pairs {
		n, m := len(p.English), len(p.French)
		y := make([]int32, n)
		used := make([]bool, m)
		for j := range y {
			k := int(math.Round((float64(j)+0.5)*float64(m)/float64(n) - 0.5))
			y[j] = -1
			if k >= 0 && k < m && !used[k] {
				y[j], used[k] = int32(k), true
			}
		}
		out[i] = y
	}
	return out
}

// scorerResult are the numbers wa_eval_align.pl prints.
type scorerResult struct {
	surePrecision, sureRecall, probablePrecision, probableRecall, aer float64
}

var scorerLine = regexp.MustCompile(`(?s)SURE alignments.*?Precision = ([\d.]+).*?Recall\s+= ([\d.]+).*?PROBABLE alignments.*?Precision = ([\d.]+).*?Recall\s+= ([\d.]+).*?AER\s+= ([\d.]+)`)

// runScorer runs the shared task's scorer on the gold file and a
// submission.
func runScorer(t *testing.T, script, gold, submission string) scorerResult {
	t.Helper()
	out, err := exec.Command("perl", script, gold, submission).CombinedOutput()
	if err != nil {
		t.Fatalf("wa_eval_align.pl: %v\n%s", err, out)
	}
	m := scorerLine.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("cannot read the scorer's output:\n%s", out)
	}
	var v [5]float64
	for k := range v {
		v[k], _ = strconv.ParseFloat(m[k+1], 64)
	}
	return scorerResult{v[0], v[1], v[2], v[3], v[4]}
}

// TestAERMatchesScorer checks the alignment counts of oracles.Matching
// against the shared task's scorer wa_eval_align.pl on real alignments of
// the 447 gold pairs: it runs the script when perl is installed, and
// otherwise compares with the numbers the script printed for the two
// alignments that depend on the data alone (recorded with perl 5.36).
func TestAERMatchesScorer(t *testing.T) {
	h := loadRealHansards(t)
	all, err := AlignmentProblem(h.Model, h.Gold)
	if err != nil {
		t.Fatal(err)
	}
	// The baselines' alignments of every gold pair, the Dice threshold
	// tuned on pairs 1-100 (0.1).
	bs, err := h.Model.Baselines(h.Gold[:h.TrainGold], h.Gold)
	if err != nil {
		t.Fatal(err)
	}
	if bs[0].Threshold != 0.1 {
		t.Fatalf("Dice threshold %v, recorded with 0.1", bs[0].Threshold)
	}
	for _, tc := range []struct {
		name     string
		pred     [][]int32
		recorded *scorerResult // the script's output, nil: compare only when perl runs
	}{
		{"diagonal", diagonalAlignment(h.Gold), &scorerResult{0.2284, 0.3821, 0.5001, 0.1938, 0.5440}},
		{"dice matching 0.1", bs[0].Pred, &scorerResult{0.5737, 0.6961, 0.7061, 0.1984, 0.2984}},
		{"IBM Model 1 intersection", bs[1].Pred, nil},
		{"diagonal IBM Model 2 intersection", bs[2].Pred, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := all.Counts(tc.pred)
			got := scorerResult{c.SurePrecision(), c.Recall(), c.Precision(), c.PossibleRecall(), c.AER()}
			want := tc.recorded
			if _, err := exec.LookPath("perl"); err == nil {
				sub := make([]align.Pair, len(h.Gold))
				for i, p := range h.Gold {
					sub[i] = align.Pair{ID: p.ID, Sure: align.Links(tc.pred[i])}
				}
				var buf bytes.Buffer
				if err := writeWordLinks(&buf, sub); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "submission.wa")
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				r := runScorer(t, filepath.Join(h.Dir, "wa_eval_align.pl"), filepath.Join(h.Dir, HansardsLinks), path)
				if tc.recorded != nil && r != *tc.recorded {
					t.Errorf("the scorer now prints %+v, recorded %+v", r, *tc.recorded)
				}
				want = &r
			} else if want == nil {
				t.Skip("perl not found: no recorded output of the scorer for this alignment")
			}
			for _, v := range []struct {
				name      string
				got, want float64
			}{
				{"sure precision", got.surePrecision, want.surePrecision}, {"recall (sure)", got.sureRecall, want.sureRecall},
				{"precision (probable)", got.probablePrecision, want.probablePrecision}, {"probable recall", got.probableRecall, want.probableRecall},
				{"AER", got.aer, want.aer},
			} {
				if fmt.Sprintf("%5.4f", v.got) != fmt.Sprintf("%5.4f", v.want) {
					t.Errorf("%s: ours %.6f, the scorer's %5.4f", v.name, v.got, v.want)
				}
			}
		})
	}
}
