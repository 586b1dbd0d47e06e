package datasets

import (
	"math"
	"strings"
)

// ChunkCounts are the counts of the CoNLL evaluation script conlleval
// (Tjong Kim Sang, version 2004-01-26) over a corpus: its chunk precision,
// recall and F1 and its token accuracy derive from them.
type ChunkCounts struct {
	Correct     int // chunks found with the right type and extent (correctChunk)
	Guessed     int // chunks in the prediction (foundGuessed)
	Gold        int // chunks in the gold standard (foundCorrect)
	CorrectTags int // tokens whose predicted tag equals the gold tag (correctTags)
	Tokens      int // tokens (tokenCounter)
}

// Precision returns 100 * Correct / Guessed, in percent, or NaN when no
// chunk was guessed (conlleval prints 0 there).
func (c ChunkCounts) Precision() float64 { return percent(c.Correct, c.Guessed) }

// Recall returns 100 * Correct / Gold, in percent, or NaN when the gold
// standard has no chunk (conlleval prints 0 there).
func (c ChunkCounts) Recall() float64 { return percent(c.Correct, c.Gold) }

// F1 returns the harmonic mean of precision and recall, in percent,
// computed as 100 * 2 Correct / (Guessed + Gold) (equal to conlleval's
// 2PR/(P+R) whenever that is defined, and 0 when no chunk is correct); NaN
// when there is no chunk at all.
func (c ChunkCounts) F1() float64 { return percent(2*c.Correct, c.Guessed+c.Gold) }

// Accuracy returns 100 * CorrectTags / Tokens, in percent, or NaN without
// tokens.
func (c ChunkCounts) Accuracy() float64 { return percent(c.CorrectTags, c.Tokens) }

func percent(num, den int) float64 {
	if den == 0 {
		return math.NaN()
	}
	return 100 * float64(num) / float64(den)
}

// ChunkEval counts chunks exactly as conlleval does when given the
// sentences one after another, each followed by a blank line (the layout of
// the CoNLL files): feed it with Add, read the result with Counts. The zero
// value is ready to use.
//
// A tag is split at its first hyphen into a prefix and a type ("B-NP" is
// B and NP, "O" is O with no type). A chunk starts and ends where
// conlleval's startOfChunk and endOfChunk say (see chunkStart, chunkEnd):
// these rules read IOB1 (where I-X after O or another type starts a chunk),
// IOB2, IOE1/IOE2 and the bracket formats alike. A chunk is correct when
// the gold and predicted chunks start at the same token with the same type
// and end at the same token, their boundaries and types agreeing in
// between. The blank line after each sentence is a token tagged O on both
// sides, so that chunks never run across sentences; it is not counted as a
// token. (conlleval also treats a line whose first field is -X- as a
// sentence break; ChunkEval knows the sentence breaks from the calls to
// Add and sees no words.)
type ChunkEval struct {
	counts    ChunkCounts
	begun     bool // lastGold and lastGuess are set
	inCorrect bool // the chunk being read is correct so far
	lastGold  tagParts
	lastGuess tagParts
}

// tagParts is a tag split into its prefix and type.
type tagParts struct{ prefix, typ string }

// splitTag splits a tag as conlleval does: ^([^-]*)-(.*)$ at the first
// hyphen, else the whole tag with an empty type. A type that Perl reads as
// false ("0") becomes empty, as in conlleval.
func splitTag(tag string) tagParts {
	prefix, typ, ok := strings.Cut(tag, "-")
	if !ok {
		return tagParts{prefix: tag}
	}
	if typ == "0" {
		typ = ""
	}
	return tagParts{prefix: prefix, typ: typ}
}

// outside is the tag of the sentence breaks.
var outside = tagParts{prefix: "O"}

// chunkEnd reports whether a chunk ended between the previous token and
// the current one: conlleval's endOfChunk.
func chunkEnd(prev, cur tagParts) bool {
	p, c := prev.prefix, cur.prefix
	switch {
	case p == "B" && c == "B", p == "B" && c == "O",
		p == "I" && c == "B", p == "I" && c == "O",
		p == "E" && c == "E", p == "E" && c == "I", p == "E" && c == "O":
		return true
	case p != "O" && p != "." && prev.typ != cur.typ:
		return true
	}
	// corrected 1998-12-22: these chunks are assumed to have length 1
	return p == "]" || p == "["
}

// chunkStart reports whether a chunk started between the previous token
// and the current one: conlleval's startOfChunk.
func chunkStart(prev, cur tagParts) bool {
	p, c := prev.prefix, cur.prefix
	switch {
	case p == "B" && c == "B", p == "I" && c == "B", p == "O" && c == "B", p == "O" && c == "I",
		p == "E" && c == "E", p == "E" && c == "I", p == "O" && c == "E":
		return true
	case c != "O" && c != "." && prev.typ != cur.typ:
		return true
	}
	return c == "[" || c == "]"
}

// Add counts one sentence: gold and guess hold the gold and predicted tag
// of each token (of equal lengths; extra tags of the longer one are
// ignored).
func (e *ChunkEval) Add(gold, guess []string) {
	if !e.begun {
		// conlleval starts as after an O token.
		e.lastGold, e.lastGuess, e.begun = outside, outside, true
	}
	n := min(len(gold), len(guess))
	for t := 0; t < n; t++ {
		g, p := splitTag(gold[t]), splitTag(guess[t])
		e.step(g, p)
		e.counts.Tokens++
		if g == p {
			e.counts.CorrectTags++
		}
	}
	e.step(outside, outside) // the blank line after the sentence
}

// step is conlleval's loop body for one line, without the token counts.
func (e *ChunkEval) step(g, p tagParts) {
	if e.inCorrect {
		endG, endP := chunkEnd(e.lastGold, g), chunkEnd(e.lastGuess, p)
		switch {
		case endG && endP && e.lastGuess.typ == e.lastGold.typ:
			e.inCorrect = false
			e.counts.Correct++
		case endG != endP || p.typ != g.typ:
			e.inCorrect = false
		}
	}
	startG, startP := chunkStart(e.lastGold, g), chunkStart(e.lastGuess, p)
	if startG && startP && p.typ == g.typ {
		e.inCorrect = true
	}
	if startG {
		e.counts.Gold++
	}
	if startP {
		e.counts.Guessed++
	}
	e.lastGold, e.lastGuess = g, p
}

// Counts returns the counts so far, including a correct chunk still open
// at the end of the input (conlleval counts it after its loop).
func (e *ChunkEval) Counts() ChunkCounts {
	c := e.counts
	if e.inCorrect {
		c.Correct++
	}
	return c
}

// Chunk is a chunk of a tagged sentence: tokens Start..End-1 of type Type.
type Chunk struct {
	Type       string
	Start, End int
}

// Chunks returns the chunks of a tag sequence, delimited by conlleval's
// rules: a chunk runs from a token where chunkStart holds up to the next
// token where chunkEnd or chunkStart holds, or to the end of the sentence.
// The sentence starts as after an O token.
func Chunks(tags []string) []Chunk {
	var out []Chunk
	prev, open, typ := outside, -1, ""
	for t, tag := range tags {
		cur := splitTag(tag)
		end, start := chunkEnd(prev, cur), chunkStart(prev, cur)
		if open >= 0 && (end || start) {
			out = append(out, Chunk{Type: typ, Start: open, End: t})
			open = -1
		}
		if start {
			open, typ = t, cur.typ
		}
		prev = cur
	}
	if open >= 0 {
		out = append(out, Chunk{Type: typ, Start: open, End: len(tags)})
	}
	return out
}
