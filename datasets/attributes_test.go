package datasets

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// crfsuiteAttributes is an independent transcription of CRFsuite's
// template.apply plus the __BOS__/__EOS__ of example/chunking.py: the
// attribute strings of every token, in order.
func crfsuiteAttributes(s Sentence, templates []Template, boundary bool) [][]string {
	T := len(s.Tags)
	out := make([][]string, T)
	for _, tpl := range templates {
		var names []string
		for _, it := range tpl {
			names = append(names, fmt.Sprintf("%s[%d]", attributeColumn(it.Column), it.Offset))
		}
		name := strings.Join(names, "|")
		for t := 0; t < T; t++ {
			var values []string
			for _, it := range tpl {
				p := t + it.Offset
				if p < 0 || p >= T {
					values = nil
					break
				}
				values = append(values, s.Fields[it.Column][p])
			}
			if values != nil {
				out[t] = append(out[t], name+"="+strings.Join(values, "|"))
			}
		}
	}
	if boundary {
		out[0] = append(out[0], "__BOS__")
		out[T-1] = append(out[T-1], "__EOS__")
	}
	return out
}

// attributeNames returns the names of the features of every token of s.
func attributeNames(t testing.TB, d *Dictionary, s *Sentence) [][]string {
	t.Helper()
	vecs, _, err := d.Vectors(s)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(vecs))
	for k, v := range vecs {
		for j, f := range v.Idx {
			if v.Val[j] != 1 {
				t.Fatalf("feature %d has value %v, want 1", f, v.Val[j])
			}
			out[k] = append(out[k], d.Name(int(f)))
		}
	}
	return out
}

// TestChunkingAttributesByHand lists, derived by hand from CRFsuite's
// template.apply, the attributes of a three-token sentence: offsets outside
// the sentence give no attribute, and the first and last tokens get
// __BOS__ and __EOS__.
func TestChunkingAttributesByHand(t *testing.T) {
	s := sentence(1, []string{"B-NP", "B-VP", "B-NP"}, []string{"He", "reckons", "the"}, []string{"PRP", "VBZ", "DT"})
	want := [][]string{{
		"w[0]=He", "w[1]=reckons", "w[2]=the", "w[0]|w[1]=He|reckons",
		"pos[0]=PRP", "pos[1]=VBZ", "pos[2]=DT", "pos[0]|pos[1]=PRP|VBZ", "pos[1]|pos[2]=VBZ|DT",
		"pos[0]|pos[1]|pos[2]=PRP|VBZ|DT", "__BOS__",
	}, {
		"w[-1]=He", "w[0]=reckons", "w[1]=the", "w[-1]|w[0]=He|reckons", "w[0]|w[1]=reckons|the",
		"pos[-1]=PRP", "pos[0]=VBZ", "pos[1]=DT", "pos[-1]|pos[0]=PRP|VBZ", "pos[0]|pos[1]=VBZ|DT",
		"pos[-1]|pos[0]|pos[1]=PRP|VBZ|DT",
	}, {
		"w[-2]=He", "w[-1]=reckons", "w[0]=the", "w[-1]|w[0]=reckons|the",
		"pos[-2]=PRP", "pos[-1]=VBZ", "pos[0]=DT", "pos[-2]|pos[-1]=PRP|VBZ", "pos[-1]|pos[0]=VBZ|DT",
		"pos[-2]|pos[-1]|pos[0]=PRP|VBZ|DT", "__EOS__",
	}}
	d, err := BuildDictionary([]Sentence{s}, AttributeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got := attributeNames(t, d, &s); !reflect.DeepEqual(got, want) {
		t.Errorf("attributes\n got %q\nwant %q", got, want)
	}
	if d.Len() != 33 || d.Seen() != 33 {
		t.Errorf("%d features of %d attributes, want 33 of 33", d.Len(), d.Seen())
	}
	one := sentence(1, []string{"O"}, []string{"Hi"}, []string{"UH"})
	d, err = BuildDictionary([]Sentence{one}, AttributeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got := attributeNames(t, d, &one); !reflect.DeepEqual(got, [][]string{{"w[0]=Hi", "pos[0]=UH", "__BOS__", "__EOS__"}}) {
		t.Errorf("one-token sentence: %q", got)
	}
}

// randomCorpus returns n sentences of 1..maxT tokens over small word and
// POS vocabularies (so that attributes repeat), with random IOB tags.
func randomCorpus(rng *rand.Rand, n, maxT, words int) []Sentence {
	tags := []string{"B-NP", "I-NP", "B-VP", "I-VP", "O"}
	pos := []string{"DT", "NN", "VB", "IN"}
	out := make([]Sentence, n)
	for i := range out {
		T := 1 + rng.IntN(maxT)
		s := Sentence{Fields: make([][]string, 2), Line: i + 1}
		for range T {
			s.Fields[0] = append(s.Fields[0], fmt.Sprintf("w%d", rng.IntN(words)))
			s.Fields[1] = append(s.Fields[1], pos[rng.IntN(len(pos))])
			s.Tags = append(s.Tags, tags[rng.IntN(len(tags))])
		}
		out[i] = s
	}
	return out
}

// TestDictionaryMatchesCRFsuite compares the dictionary with the string
// transcription of CRFsuite on random corpora: the features of every
// training token, the MinCount cutoff with the counts, the order of first
// appearance, and the attributes of test tokens that are dropped.
func TestDictionaryMatchesCRFsuite(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	custom := []Template{{{1, 0}, {0, -3}}, {{0, 1}}}
	for _, tc := range []struct {
		name      string
		templates []Template
		boundary  bool
		minCount  int
	}{
		{"chunking, all attributes", nil, true, 0},
		{"chunking, at least 3", nil, true, 3},
		{"custom templates, no boundary, at least 2", custom, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			train := randomCorpus(rng, 60, 9, 12)
			test := randomCorpus(rng, 20, 9, 16) // words 12..15 are unseen
			d, err := BuildDictionary(train, AttributeConfig{Templates: tc.templates, NoBoundary: !tc.boundary, MinCount: tc.minCount})
			if err != nil {
				t.Fatal(err)
			}
			templates := tc.templates
			if templates == nil {
				templates = ChunkingTemplates
			}
			count := map[string]int{}
			var order []string
			for _, s := range train {
				for _, attrs := range crfsuiteAttributes(s, templates, tc.boundary) {
					for _, a := range attrs {
						if count[a] == 0 {
							order = append(order, a)
						}
						count[a]++
					}
				}
			}
			var kept []string
			for _, a := range order {
				if count[a] >= max(tc.minCount, 1) {
					kept = append(kept, a)
				}
			}
			if d.Seen() != len(order) || d.Len() != len(kept) {
				t.Fatalf("%d features of %d attributes, want %d of %d", d.Len(), d.Seen(), len(kept), len(order))
			}
			for f, a := range kept {
				if d.Name(f) != a || d.Count(f) != count[a] {
					t.Fatalf("feature %d is %q seen %d times, want %q seen %d times", f, d.Name(f), d.Count(f), a, count[a])
				}
			}
			inDict := map[string]bool{}
			for _, a := range kept {
				inDict[a] = true
			}
			for _, set := range [][]Sentence{train, test} {
				for k := range set {
					s := &set[k]
					got := attributeNames(t, d, s)
					wantDropped := 0
					for tok, attrs := range crfsuiteAttributes(*s, templates, tc.boundary) {
						var want []string
						for _, a := range attrs {
							if inDict[a] {
								want = append(want, a)
							} else {
								wantDropped++
							}
						}
						if !reflect.DeepEqual(got[tok], want) {
							t.Fatalf("sentence %d token %d: features %q, want %q", k, tok, got[tok], want)
						}
					}
					if _, dropped, _ := d.Vectors(s); dropped != wantDropped {
						t.Fatalf("sentence %d: %d attributes dropped, want %d", k, dropped, wantDropped)
					}
				}
			}
		})
	}
}

func TestDictionaryErrors(t *testing.T) {
	s := []Sentence{sentence(7, []string{"O"}, []string{"a"})} // one input column
	cases := []struct {
		name      string
		templates []Template
		want      string
	}{
		{"POS column missing", nil, "sentence 0 (line 7) has 1 input columns, but the attribute templates use 2"},
		{"empty template", []Template{{}}, "attribute template 0 has 0 items"},
		{"negative column", []Template{{{-1, 0}}}, "negative column"},
	}
	for _, tc := range cases {
		if _, err := BuildDictionary(s, AttributeConfig{Templates: tc.templates}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	d, err := BuildDictionary(s, AttributeConfig{Templates: []Template{{{0, 0}}}})
	if err != nil {
		t.Fatal(err)
	}
	short := Sentence{Tags: []string{"O"}}
	if _, _, err := d.Vectors(&short); err == nil {
		t.Error("Vectors of a sentence without the template's column: no error")
	}
}
