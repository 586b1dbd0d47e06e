package datasets

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestChunkEvalByHand checks ChunkEval on hand-made corpora whose counts
// are derived in the comments by following conlleval's rules.
func TestChunkEvalByHand(t *testing.T) {
	f := strings.Fields
	cases := []struct {
		name        string
		gold, guess [][]string // sentences
		want        ChunkCounts
	}{{
		// NP [0,2), VP [2,3), NP [4,5) on both sides: 3 chunks, all
		// correct; 5 of 5 tags right.
		name:  "perfect IOB2",
		gold:  [][]string{f("B-NP I-NP B-VP O B-NP")},
		guess: [][]string{f("B-NP I-NP B-VP O B-NP")},
		want:  ChunkCounts{Correct: 3, Guessed: 3, Gold: 3, CorrectTags: 5, Tokens: 5},
	}, {
		// Gold NP [0,3); guess NP [0,2) and NP [2,3). Both start at 0 with
		// type NP, but at token 2 the guess ends (I then B) and the gold
		// does not: no correct chunk. Tags: 2 of 3.
		name:  "boundary error",
		gold:  [][]string{f("B-NP I-NP I-NP")},
		guess: [][]string{f("B-NP I-NP B-NP")},
		want:  ChunkCounts{Correct: 0, Guessed: 2, Gold: 1, CorrectTags: 2, Tokens: 3},
	}, {
		// Same extent, wrong type: one chunk each side, none correct, no
		// tag right.
		name:  "type error",
		gold:  [][]string{f("B-NP I-NP")},
		guess: [][]string{f("B-VP I-VP")},
		want:  ChunkCounts{Correct: 0, Guessed: 1, Gold: 1, CorrectTags: 0, Tokens: 2},
	}, {
		// IOB1 gold: I-NP after the sentence start (an O) starts NP [0,2),
		// O ends it, I-VP after O starts VP [3,4). The IOB2 guess has the
		// same chunks: both correct, though the first tag differs (3 of 4
		// tags right).
		name:  "IOB1 and IOB2 agree on chunks",
		gold:  [][]string{f("I-NP I-NP O I-VP")},
		guess: [][]string{f("B-NP I-NP O I-VP")},
		want:  ChunkCounts{Correct: 2, Guessed: 2, Gold: 2, CorrectTags: 3, Tokens: 4},
	}, {
		// IOB1 gold: B-NP after I-NP starts a second NP: NP [0,1), NP
		// [1,3). The guess is one NP [0,3): it starts with the gold's first
		// chunk but does not end at token 1. 2 gold, 1 guessed, 0 correct;
		// tags 0 and 2 right.
		name:  "IOB1 adjacent chunks of one type",
		gold:  [][]string{f("I-NP B-NP I-NP")},
		guess: [][]string{f("I-NP I-NP I-NP")},
		want:  ChunkCounts{Correct: 0, Guessed: 1, Gold: 2, CorrectTags: 2, Tokens: 3},
	}, {
		// I-VP after B-NP: the type change ends NP [0,1) and starts VP
		// [1,2) in the gold, as B-VP does in the guess: 2 correct chunks,
		// 1 of 2 tags right.
		name:  "type change without B",
		gold:  [][]string{f("B-NP I-VP")},
		guess: [][]string{f("B-NP B-VP")},
		want:  ChunkCounts{Correct: 2, Guessed: 2, Gold: 2, CorrectTags: 1, Tokens: 2},
	}, {
		// No gold chunk, one guessed NP [0,1): precision 0/1, recall
		// undefined; token 1 right.
		name:  "only O in the gold",
		gold:  [][]string{f("O O")},
		guess: [][]string{f("B-NP O")},
		want:  ChunkCounts{Correct: 0, Guessed: 1, Gold: 0, CorrectTags: 1, Tokens: 2},
	}, {
		// The blank line between the sentences is an O: the I-NP opening
		// the second sentence starts a new chunk instead of continuing NP
		// [0,2). 2 chunks each side, both correct.
		name:  "chunks end with the sentence",
		gold:  [][]string{f("B-NP I-NP"), f("I-NP")},
		guess: [][]string{f("B-NP I-NP"), f("I-NP")},
		want:  ChunkCounts{Correct: 2, Guessed: 2, Gold: 2, CorrectTags: 3, Tokens: 3},
	}, {
		// IOE1 gold: E-NP ends NP [0,2) only when a chunk of the same type
		// follows (E then I ends and starts); I-NP at 2 is NP [2,3). The
		// guess I I I is one NP [0,3). Tags 0 and 2 right.
		name:  "IOE1",
		gold:  [][]string{f("I-NP E-NP I-NP")},
		guess: [][]string{f("I-NP I-NP I-NP")},
		want:  ChunkCounts{Correct: 0, Guessed: 1, Gold: 2, CorrectTags: 2, Tokens: 3},
	}, {
		// Dots continue a chunk and escape the type-change rule: gold and
		// guess start NP at 0 and continue it at 1; at 2 the guess's dot
		// carries type VP, which neither ends nor starts a chunk, but
		// conlleval drops the candidate there because the types differ. 1
		// chunk each side, none correct; tags 0 and 1 right.
		name:  "dots with a type change",
		gold:  [][]string{f("B-NP .-NP .-NP")},
		guess: [][]string{f("B-NP .-NP .-VP")},
		want:  ChunkCounts{Correct: 0, Guessed: 1, Gold: 1, CorrectTags: 2, Tokens: 3},
	}, {
		// Perl reads the type "0" as false, so conlleval turns it into the
		// empty type: B-0 equals B- (token 0 right). The guess's I-X then
		// changes type: its chunk [0,1) ends at 1 while the gold's [0,2)
		// goes on. 1 gold, 2 guessed, 0 correct, 1 tag right.
		name:  "type 0 is the empty type",
		gold:  [][]string{f("B-0 I-0")},
		guess: [][]string{f("B- I-X")},
		want:  ChunkCounts{Correct: 0, Guessed: 2, Gold: 1, CorrectTags: 1, Tokens: 2},
	}, {
		// Types with hyphens split at the first one: B-PER-X is B of type
		// PER-X, equal on both sides: 1 correct chunk of 1.
		name:  "hyphen in the type",
		gold:  [][]string{f("B-PER-X I-PER-X")},
		guess: [][]string{f("B-PER-X I-PER-X")},
		want:  ChunkCounts{Correct: 1, Guessed: 1, Gold: 1, CorrectTags: 2, Tokens: 2},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var e ChunkEval
			for k := range tc.gold {
				e.Add(tc.gold[k], tc.guess[k])
			}
			if got := e.Counts(); got != tc.want {
				t.Errorf("counts %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestChunkCountsScores(t *testing.T) {
	// 6 correct of 8 guessed and 10 gold: P = 75, R = 60, F1 = 2PR/(P+R)
	// = 9000/135 = 66.67 = 200*6/18; 45 of 50 tags right.
	c := ChunkCounts{Correct: 6, Guessed: 8, Gold: 10, CorrectTags: 45, Tokens: 50}
	for _, m := range []struct {
		name      string
		got, want float64
	}{
		{"precision", c.Precision(), 75},
		{"recall", c.Recall(), 60},
		{"F1", c.F1(), 2 * 75 * 60 / 135.0},
		{"accuracy", c.Accuracy(), 90},
	} {
		if math.Abs(m.got-m.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", m.name, m.got, m.want)
		}
	}
	var none ChunkCounts
	if !math.IsNaN(none.Precision()) || !math.IsNaN(none.Recall()) || !math.IsNaN(none.F1()) || !math.IsNaN(none.Accuracy()) {
		t.Error("scores without chunks or tokens are not NaN")
	}
	noneRight := ChunkCounts{Guessed: 1, Gold: 2}
	if noneRight.F1() != 0 || noneRight.Precision() != 0 {
		t.Errorf("no correct chunk: F1 %v, precision %v; want 0, 0", noneRight.F1(), noneRight.Precision())
	}
}

// iobSpans is an independent reading of B/I/O tags: a chunk of type X
// starts at B-X, or at I-X unless the previous tag is B-X or I-X, and runs
// over the following I-X.
func iobSpans(tags []string) map[Chunk]bool {
	spans := map[Chunk]bool{}
	open, typ := -1, ""
	for t, tag := range append(tags, "O") {
		prefix, ty, _ := strings.Cut(tag, "-")
		cont := prefix == "I" && open >= 0 && ty == typ
		if open >= 0 && !cont {
			spans[Chunk{Type: typ, Start: open, End: t}] = true
			open = -1
		}
		if prefix != "O" && !cont {
			open, typ = t, ty
		}
	}
	return spans
}

// TestChunkEvalMatchesSpans compares ChunkEval with span matching on
// random B/I/O sequences (IOB1 and IOB2 mixed): chunks correct exactly when
// the gold and guessed chunks have the same type and extent.
func TestChunkEvalMatchesSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	alphabet := []string{"B-NP", "I-NP", "B-VP", "I-VP", "O"}
	random := func() []string {
		tags := make([]string, 1+rng.IntN(8))
		for k := range tags {
			tags[k] = alphabet[rng.IntN(len(alphabet))]
		}
		return tags
	}
	for trial := 0; trial < 500; trial++ {
		var e ChunkEval
		var want ChunkCounts
		for range 1 + rng.IntN(4) {
			gold, guess := random(), random()
			if rng.IntN(3) == 0 {
				guess = gold[:len(gold):len(gold)]
			} else if len(guess) != len(gold) {
				guess = append(guess, make([]string, len(gold))...)[:len(gold)]
				for k := range guess {
					if guess[k] == "" {
						guess[k] = "O"
					}
				}
			}
			e.Add(gold, guess)
			gs, ps := iobSpans(gold), iobSpans(guess)
			want.Gold += len(gs)
			want.Guessed += len(ps)
			for sp := range gs {
				if ps[sp] {
					want.Correct++
				}
			}
			for k := range gold {
				if gold[k] == guess[k] {
					want.CorrectTags++
				}
			}
			want.Tokens += len(gold)
			if got := Chunks(gold); len(got) != len(gs) {
				t.Fatalf("Chunks(%v) = %v, want the spans %v", gold, got, gs)
			} else {
				for _, ch := range got {
					if !gs[ch] {
						t.Fatalf("Chunks(%v) = %v, want the spans %v", gold, got, gs)
					}
				}
			}
		}
		if got := e.Counts(); got != want {
			t.Fatalf("trial %d: counts %+v, span matching %+v", trial, got, want)
		}
	}
}

func TestChunks(t *testing.T) {
	f := strings.Fields
	cases := []struct {
		tags []string
		want []Chunk
	}{
		{f("B-NP I-NP B-VP O B-NP"), []Chunk{{"NP", 0, 2}, {"VP", 2, 3}, {"NP", 4, 5}}},
		{f("I-NP B-NP O O"), []Chunk{{"NP", 0, 1}, {"NP", 1, 2}}},
		{f("O O"), nil},
		{f("B-NP I-VP I-VP"), []Chunk{{"NP", 0, 1}, {"VP", 1, 3}}},
		{f("I-NP E-NP I-NP"), []Chunk{{"NP", 0, 2}, {"NP", 2, 3}}},
		{f("[-NP ]-NP"), []Chunk{{"NP", 0, 1}, {"NP", 1, 2}}},
	}
	for _, tc := range cases {
		if got := Chunks(tc.tags); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Chunks(%v) = %v, want %v", tc.tags, got, tc.want)
		}
	}
}
