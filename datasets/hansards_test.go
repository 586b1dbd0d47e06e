package datasets

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/align"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

func TestReadSnumSentences(t *testing.T) {
	good := "<s snum=0001> 2 .  </s>\n\n<s snum=0003>  oh , oh !</s>\r\n<s snum=7> r\xe9ponse \xab oui \xbb </s>\n"
	got, err := readSnumSentences(strings.NewReader(good), "test.f")
	if err != nil {
		t.Fatal(err)
	}
	want := []snumSentence{{1, []string{"2", "."}, 1}, {3, []string{"oh", ",", "oh", "!"}, 3}, {7, []string{"réponse", "«", "oui", "»"}, 4}}
	if len(got) != len(want) {
		t.Fatalf("got %d sentences, want %d", len(got), len(want))
	}
	for k := range want {
		if got[k].num != want[k].num || got[k].line != want[k].line || strings.Join(got[k].words, "|") != strings.Join(want[k].words, "|") {
			t.Errorf("sentence %d: %+v, want %+v", k, got[k], want[k])
		}
	}
	if got, _ := readSnumSentences(strings.NewReader("<s snum=1> été </s>\n"), "utf8"); got[0].words[0] != "été" {
		t.Errorf("a UTF-8 line was not read as UTF-8: %q", got[0].words[0])
	}
	for _, tc := range []struct{ in, want string }{
		{"2 . </s>\n", `hansards: f:1: want <s snum=N> words </s>, got "2 . </s>"`},
		{"<s snum=1 2 .\n", `hansards: f:1: no > closing <s snum="1 2 ."`},
		{"<s snum=x> 2 . </s>\n", `hansards: f:1: sentence number "x" is not a non-negative integer`},
		{"<s snum=1> 2 .\n", `hansards: f:1: sentence 1 does not end with </s>`},
		{"<s snum=1> a </s>\n<s snum=1> b </s>\n", `hansards: f:2: sentence number 1 repeats line 1`},
		{"<s snum=1> </s>\n", `hansards: f:1: sentence 1 has no words`},
		{"\n\n", `hansards: f: no sentences`},
	} {
		if _, err := readSnumSentences(strings.NewReader(tc.in), "f"); err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %s", tc.in, err, tc.want)
		}
	}
}

func TestReadWordLinks(t *testing.T) {
	got, err := readWordLinks(strings.NewReader("0001 1 1 S\n0001 2 3 P\n\n0002 1 0\n0002 2 2 0.7\n0002 3 3 P 0.5\n0002 4 4 0.5 S\n"), "wa")
	if err != nil {
		t.Fatal(err)
	}
	want := []wordLink{{1, 1, 1, true, 1}, {1, 2, 3, false, 2}, {2, 1, 0, true, 4}, {2, 2, 2, true, 5}, {2, 3, 3, false, 6}, {2, 4, 4, true, 7}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("link %d: %+v, want %+v", k, got[k], want[k])
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"0001 1\n", "hansards: wa:1: want sentence english french [S|P] [confidence], got 2 fields"},
		{"0001 1 2 S 1 2\n", "hansards: wa:1: want sentence english french [S|P] [confidence], got 6 fields"},
		{"0001 x 2 S\n", `hansards: wa:1: English position "x" is not a non-negative integer`},
		{"0001 1 -2 S\n", `hansards: wa:1: French position "-2" is not a non-negative integer`},
		{"1 1 1 S\n1 1 2 Q\n", `hansards: wa:2: link kind "Q", want S, P or a confidence`},
		{"1 1 1 S P\n", `hansards: wa:1: link kind and confidence "S" "P", want S or P and a number`},
	} {
		if _, err := readWordLinks(strings.NewReader(tc.in), "wa"); err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %s", tc.in, err, tc.want)
		}
	}
}

func TestReadParallel(t *testing.T) {
	got, err := readParallel(strings.NewReader("reprise de la séance ||| sitting resumed\n2 . ||| 2 .\n"), "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || strings.Join(got[0].French, " ") != "reprise de la séance" || strings.Join(got[0].English, " ") != "sitting resumed" || got[0].ID != 1 || got[1].ID != 2 {
		t.Fatalf("got %+v", got)
	}
	for _, tc := range []struct{ in, want string }{
		{"a b c\n", "hansards: p:1: no ||| separator; want french words ||| english words"},
		{"a ||| b ||| c\n", "hansards: p:1: ||| appears twice; want french words ||| english words"},
		{"a ||| b\n||| c\n", "hansards: p:2: no French words before |||"},
		{"a |||\n", "hansards: p:1: no English words after |||"},
		{"a ||| b\n\n", "hansards: p:2: no ||| separator; want french words ||| english words"},
		{"", "hansards: p: no sentence pairs"},
	} {
		if _, err := readParallel(strings.NewReader(tc.in), "p"); err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %s", tc.in, err, tc.want)
		}
	}
}

// syntheticHansards writes a synthetic corpus into a temporary folder.
func syntheticHansards(t *testing.T, cfg SyntheticHansardsConfig) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hansards")
	if err := WriteSyntheticHansards(dir, cfg); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadHansardsSynthetic(t *testing.T) {
	dir := syntheticHansards(t, SyntheticHansardsConfig{Gold: 30, Unaligned: 500, MaxWords: 4, Seed: 1})
	h, err := LoadHansards(HansardsOptions{Path: filepath.Dir(dir), TrainGold: 10})
	if err != nil {
		t.Fatal(err)
	}
	if h.Dir != dir || len(h.Gold) != 30 || h.GoldCopies != 30 || h.Unaligned != 500 || h.Train.Len() != 10 || h.Test.Len() != 20 {
		t.Fatalf("dir %s, %d gold, %d copies, %d unaligned, %d train, %d test", h.Dir, len(h.Gold), h.GoldCopies, h.Unaligned, h.Train.Len(), h.Test.Len())
	}
	if h.Train.Dim() != len(AlignmentFeatureNames) {
		t.Fatalf("dimension %d, %d feature names", h.Train.Dim(), len(AlignmentFeatureNames))
	}
	// The French file is Latin-1: accented words decode.
	found := false
	for _, p := range h.Gold {
		for _, w := range p.French {
			found = found || w == "été" || w == "très" || w == "«"
		}
	}
	if !found {
		t.Error("no accented French word or guillemet decoded from the Latin-1 file")
	}
	// Unsupervised statistics recover the dictionary: Dice and the
	// intersected IBM Model 1 alignment of translation pairs.
	dice := func(e, f string) float64 { return h.Model.Sentence([]string{e}, []string{f}).Dice[0] }
	if d := dice("house", "maison"); d < 0.9 {
		t.Errorf("Dice(house, maison) = %v, want near 1", d)
	}
	if d := dice("house", "ministre"); d > 0.3 {
		t.Errorf("Dice(house, ministre) = %v, want small", d)
	}
	links := h.Model.Intersection([]string{"the", "minister", "of", "summer"}, []string{"le", "ministre", "de", "été"}, align.IBM1)
	if want := [][2]int32{{0, 0}, {1, 1}, {2, 2}, {3, 3}}; len(links) != 4 || links[1] != want[1] || links[3] != want[3] {
		t.Errorf("intersection %v, want %v", links, want)
	}
	// The problems honour the Problem contract (brute force on the short
	// sentences).
	oraclestest.Conformance(t, h.Train, oraclestest.CheckOptions{Seed: 1, MaxLabelings: 5000})
	oraclestest.Conformance(t, h.Test, oraclestest.CheckOptions{Seed: 2, Examples: 8})
	// Every feature value in range, the bias everywhere.
	for i := 0; i < h.Test.Len(); i++ {
		x := h.Test.Example(i)
		for e := 0; e < x.Rows*x.Cols; e++ {
			bias := false
			for t2 := x.Start[e]; t2 < x.Start[e+1]; t2++ {
				f, v := x.Index[t2], float64(x.Value[t2])
				lo := 0.0
				if f == fDiceMarginEn || f == fDiceMarginFr {
					lo = -1
				}
				if v < lo-1e-6 || v > 1+1e-6 {
					t.Fatalf("example %d edge %d: feature %s = %v outside [%v, 1]", i, e, AlignmentFeatureNames[f], v, lo)
				}
				bias = bias || f == fBias && v == 1
			}
			if !bias {
				t.Fatalf("example %d edge %d has no bias feature", i, e)
			}
		}
	}
	// Baselines: all align something and are scored on the test pairs.
	bs, err := h.Model.Baselines(h.Gold[:h.TrainGold], h.TestPairs)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 3 || bs[0].Counts.Predicted == 0 || bs[1].Counts.Predicted == 0 || bs[2].Counts.Predicted == 0 ||
		math.IsNaN(bs[0].Threshold) || !math.IsNaN(bs[1].Threshold) || !math.IsNaN(bs[2].Threshold) {
		t.Fatalf("baselines %+v", bs)
	}
	for _, b := range bs {
		if aer := b.Counts.AER(); !(aer < 0.5) {
			t.Errorf("%s: AER %v on the synthetic corpus, want < 0.5", b.Name, aer)
		}
	}
}

func TestLoadHansardsIntersected(t *testing.T) {
	dir := syntheticHansards(t, SyntheticHansardsConfig{Seed: 2})
	h, err := LoadHansards(HansardsOptions{Path: dir, Training: HansardsIntersected, Intersected: 50, TrainGold: 15})
	if err != nil {
		t.Fatal(err)
	}
	if h.Train.Len() != 50 || len(h.TrainPairs) != 50 || h.Test.Len() != 25 {
		t.Fatalf("%d training and %d test pairs, want 50 and 25", h.Train.Len(), h.Test.Len())
	}
	for i, p := range h.TrainPairs {
		if p.ID != 40+i+1 || len(p.Possible) != 0 {
			t.Fatalf("pair %d: id %d (want the line %d), %d possible links", i, p.ID, 40+i+1, len(p.Possible))
		}
		want := h.Model.Intersection(p.English, p.French, align.DiagonalIBM2)
		if len(p.Sure) != len(want) {
			t.Fatalf("pair %d: labels %v, intersection %v", i, p.Sure, want)
		}
		// The intersection is a matching: the target is all of it, at loss 0.
		if got := align.Links(h.Train.Truth(i)); len(got) != len(want) {
			t.Fatalf("pair %d: target %v, intersection %v", i, got, want)
		}
	}
}

func TestLoadHansardsErrors(t *testing.T) {
	dir := syntheticHansards(t, SyntheticHansardsConfig{Gold: 5, Unaligned: 20, Seed: 3})
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	en, fr, links := read(HansardsEnglish), read(HansardsFrench), read(HansardsLinks)
	for _, tc := range []struct {
		name  string
		files map[string]string
		opt   HansardsOptions
		want  string // a regular expression
	}{
		{"too many training pairs", nil, HansardsOptions{}, `^hansards: 100 gold training pairs requested, need between 1 and 4 \(the data has 5 gold pairs\)$`},
		{"intersected", nil, HansardsOptions{TrainGold: 2, Training: HansardsIntersected, Intersected: 21}, `^hansards: 21 intersected training pairs requested, need between 1 and 20 \(the unaligned pairs\)$`},
		{"order", map[string]string{HansardsFrench: strings.Replace(fr, "snum=0002", "snum=0009", 1)}, HansardsOptions{TrainGold: 2},
			`^hansards: .*test\.f:2: sentence 9, but .*test\.e:2 is sentence 2 \(the two files must list the same sentences in the same order\)$`},
		{"count", map[string]string{HansardsEnglish: en + "<s snum=0006> x </s>\n"}, HansardsOptions{TrainGold: 2}, `^hansards: .*test\.e has 6 sentences and .*test\.f 5$`},
		{"sentence", map[string]string{HansardsLinks: links + "0042 1 1 S\n"}, HansardsOptions{TrainGold: 2}, `^hansards: .*test\.wa\.nonullalign:\d+: sentence 42 is not in .*test\.e$`},
		{"outside", map[string]string{HansardsLinks: links + "0001 99 1 S\n"}, HansardsOptions{TrainGold: 2}, `^hansards: .*test\.wa\.nonullalign:\d+: link 99-1 outside sentence 1 \(\d+ English and \d+ French words\)$`},
		{"twice", map[string]string{HansardsLinks: links + strings.SplitAfter(links, "\n")[0]}, HansardsOptions{TrainGold: 2}, `^hansards: .*test\.wa\.nonullalign:\d+: link 1-\d+ of sentence 1 repeats line 1$`},
		// Empty gold files (issue 35): never a training to test loss 0.
		{"no links", map[string]string{HansardsLinks: ""}, HansardsOptions{TrainGold: 2}, `^hansards: .*test\.wa\.nonullalign: no links: the gold alignments are empty$`},
		{"NULL links only", map[string]string{HansardsLinks: "0001 0 1 S\n0002 1 0 P\n"}, HansardsOptions{TrainGold: 2}, `^hansards: .*test\.wa\.nonullalign: its 2 links are all to the NULL word: the gold alignments are empty$`},
		{"no English", map[string]string{HansardsEnglish: ""}, HansardsOptions{TrainGold: 2}, `^hansards: .*test\.e: no sentences$`},
		{"no French", map[string]string{HansardsFrench: "\n"}, HansardsOptions{TrainGold: 2}, `^hansards: .*test\.f: no sentences$`},
		{"hex confidence", map[string]string{HansardsLinks: links + "0001 1 1 0x1p-2\n"}, HansardsOptions{TrainGold: 2}, `^hansards: .*test\.wa\.nonullalign:\d+: link kind "0x1p-2", want S, P or a confidence$`},
		{"bad pairs", map[string]string{HansardsPairs: "a b\n"}, HansardsOptions{TrainGold: 2}, `^hansards: .*10k\.fr-en\.gz:1: no \|\|\| separator`},
		{"gold only", map[string]string{HansardsPairs: ""}, HansardsOptions{TrainGold: 2}, `^hansards: .*10k\.fr-en\.gz: no sentence pairs$`},
		{"missing", map[string]string{HansardsFrench: "-"}, HansardsOptions{TrainGold: 2}, `^hansards: .* holds neither test\.e, test\.f and test\.wa\.nonullalign nor hansards/$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "h")
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{HansardsEnglish, HansardsFrench, HansardsLinks, HansardsPairs} {
				data, ok := tc.files[name]
				if !ok {
					data = read(name)
				}
				if data == "-" {
					continue
				}
				if err := os.WriteFile(filepath.Join(d, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opt := tc.opt
			opt.Path = d
			_, err := LoadHansards(opt)
			if err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Fatalf("error %v, want %s", err, tc.want)
			}
		})
	}
}

func TestLocateHansards(t *testing.T) {
	dir := syntheticHansards(t, SyntheticHansardsConfig{Gold: 4, Unaligned: 10, Seed: 4})
	root := filepath.Dir(dir)
	for _, p := range []string{dir, root, filepath.Join(dir, HansardsEnglish)} {
		if got, err := LocateHansards(p); err != nil || got != dir {
			t.Errorf("LocateHansards(%s) = %s, %v; want %s", p, got, err, dir)
		}
	}
	t.Setenv(EnvVar, root)
	if got, err := LocateHansards(""); err != nil || got != dir {
		t.Errorf("with $%s: %s, %v; want %s", EnvVar, got, err, dir)
	}
	if kind, err := Recognize(dir); err != nil || kind != "hansards" {
		t.Errorf("Recognize: %s, %v", kind, err)
	}
	train, test, err := Load(dir, Options{Hansards: HansardsOptions{TrainGold: 2}})
	if err != nil || train.Len() != 2 || test.Len() != 2 {
		t.Fatalf("Load by path: %v", err)
	}
	if _, _, err := Load("hansards", Options{Hansards: HansardsOptions{TrainGold: 3}}); err != nil {
		t.Fatalf("Load by name with $%s: %v", EnvVar, err)
	}
	empty := t.TempDir()
	t.Setenv(EnvVar, empty)
	t.Setenv("XDG_CACHE_HOME", empty)
	t.Setenv("HOME", empty)
	_, err = LocateHansards("")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "fwstruct cannot download it") || !strings.Contains(err.Error(), "in $FWSTRUCT_DATA/hansards or "+filepath.Join(empty, "fwstruct", "hansards")) {
		t.Fatalf("not found: %v", err)
	}
	if _, err := LocateHansards(filepath.Join(empty, "nothing")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("explicit path that does not exist: %v", err)
	}
}

func TestHansardsTrainingString(t *testing.T) {
	for tr, want := range map[HansardsTraining]string{HansardsGold: "gold", HansardsIntersected: "intersected", 7: "HansardsTraining(7)"} {
		if got := tr.String(); got != want {
			t.Errorf("%d: %q, want %q", int(tr), got, want)
		}
	}
}

// TestAlignmentFeatureTable checks that the table of the features in the
// documentation lists every feature of AlignmentFeatureNames at its index.
func TestAlignmentFeatureTable(t *testing.T) {
	src, err := os.ReadFile("hansards_features.go")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[int]string{}
	row := regexp.MustCompile(`(?m)^//\t(\d+)(?:-(\d+))?\s+(\S+)`)
	for _, m := range row.FindAllStringSubmatch(string(src), -1) {
		lo, _ := strconv.Atoi(m[1])
		hi := lo
		if m[2] != "" {
			hi, _ = strconv.Atoi(m[2])
		}
		for i := lo; i <= hi; i++ {
			documented[i] = m[3]
		}
	}
	if len(documented) != len(AlignmentFeatureNames) {
		t.Errorf("the table documents %d features, the model has %d", len(documented), len(AlignmentFeatureNames))
	}
	for i, name := range AlignmentFeatureNames {
		doc, ok := documented[i]
		stem := strings.TrimRight(strings.Split(doc, "...")[0], "_0123456789,")
		if !ok || !strings.HasPrefix(name, strings.TrimSuffix(stem, "_")) {
			t.Errorf("feature %d %s: the table says %q", i, name, doc)
		}
		if name == "" {
			t.Errorf("feature %d has no name", i)
		}
	}
}
