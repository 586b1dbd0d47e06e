package datasets

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// Chunking is a sequence-labeling task read from a column-format corpus
// (CoNLL-2000 text chunking, or NER and the like): the chain problem of
// Osokin et al. (2016, App. I.2) over binary attribute features, with the
// sentences and tag strings it was built from, so that predictions can be
// scored chunk by chunk as conlleval does (Metrics, Evaluate) and shown as
// text (Render).
//
// The embedded *oracles.Chain is the oracles.Problem: sparse binary
// emissions (one feature per attribute of the Dictionary), transitions and
// the three bias blocks, the normalized Hamming loss and Viterbi decoding
// over the K = len(Tags) labels.
type Chunking struct {
	*oracles.Chain
	// Tags holds the tag of each label: label k is Tags[k].
	Tags []string
	// Sentences are the tokens, with their gold tags as written in the
	// file, including tags that are not in Tags (see Unseen).
	Sentences []Sentence
	// Dict is the attribute dictionary, built on the training sentences
	// and shared by the training and test problems.
	Dict *Dictionary
	// Dropped is the number of attribute occurrences of these sentences
	// that Dict does not hold (unseen in training or rarer than its
	// MinCount): they have no feature.
	Dropped int
	// Unseen counts the tokens whose gold tag is not in Tags (e.g. the two
	// I-LST tokens of the CoNLL-2000 test set, a tag absent from its
	// training set): Unseen.Labels are those tags, sorted, Unseen.Items the
	// tokens (Item "token"), and Unseen.Features is Dropped. The tags are
	// no label of the chain: the ground truth of those tokens is
	// oracles.NoClass, so that every prediction there is an error in the
	// chain's Hamming loss (the task loss) as in Metrics and Evaluate,
	// which read the gold strings as conlleval does.
	Unseen Unseen
}

var (
	_ oracles.Problem   = (*Chunking)(nil)
	_ oracles.Evaluator = (*Chunking)(nil)
)

// NewChunking builds the chunking problem of sentences with the attribute
// dictionary dict and the label set tags (nil: the sorted distinct gold tags
// of the sentences). A gold tag that is not in tags is oracles.NoClass in
// the chain (see Chunking.Unseen).
func NewChunking(sents []Sentence, dict *Dictionary, tags []string) (*Chunking, error) {
	if len(sents) == 0 {
		return nil, fmt.Errorf("chunking: no sentences")
	}
	if tags == nil {
		tags = TagSet(sents)
	}
	label := make(map[string]int32, len(tags))
	for k, tag := range tags {
		if _, dup := label[tag]; dup {
			return nil, fmt.Errorf("chunking: tag %q listed twice", tag)
		}
		label[tag] = int32(k)
	}
	c := &Chunking{Tags: tags, Sentences: sents, Dict: dict, Unseen: Unseen{Item: "token"}}
	unseen := map[string]bool{}
	seqs := make([]oracles.Sequence, len(sents))
	var e extractor
	for i := range sents {
		s := &sents[i]
		feats, dropped, err := dict.vectors(&e, s)
		if err != nil {
			return nil, fmt.Errorf("chunking: %w", err)
		}
		c.Dropped += dropped
		labels := make([]int32, len(s.Tags))
		for t, tag := range s.Tags {
			l, ok := label[tag]
			if !ok {
				l = oracles.NoClass
				unseen[tag] = true
				c.Unseen.Items++
			}
			labels[t] = l
		}
		seqs[i] = oracles.Sequence{Features: feats, Labels: labels}
	}
	c.Unseen.Features = c.Dropped
	if len(unseen) > 0 {
		c.Unseen.Labels = slices.Sorted(maps.Keys(unseen))
	}
	chain, err := oracles.NewChain(len(tags), dict.Len(), seqs)
	if err != nil {
		return nil, fmt.Errorf("chunking: %w", err)
	}
	c.Chain = chain
	return c, nil
}

// TagSet returns the sorted distinct gold tags of the sentences.
func TagSet(sents []Sentence) []string {
	seen := make(map[string]bool)
	var tags []string
	for k := range sents {
		for _, tag := range sents[k].Tags {
			if !seen[tag] {
				seen[tag] = true
				tags = append(tags, tag)
			}
		}
	}
	slices.Sort(tags)
	return tags
}

// TagStrings returns the tags of labeling y (of example i's length): label
// k is Tags[k], a label out of range is "?". A nil y gives the gold tags of
// the file.
func (c *Chunking) TagStrings(i int, y []int32) []string {
	if y == nil {
		return c.Sentences[i].Tags
	}
	out := make([]string, len(y))
	for t, l := range y {
		out[t] = "?"
		if l >= 0 && int(l) < len(c.Tags) {
			out[t] = c.Tags[l]
		}
	}
	return out
}

// Evaluate scores the predictions pred[i] of every example i against the
// gold tags of the file, as conlleval does (see ChunkEval). A missing or
// short prediction leaves the remaining tokens of its sentence out.
func (c *Chunking) Evaluate(pred [][]int32) ChunkCounts {
	var e ChunkEval
	guess := make([]string, 0, c.MaxLen())
	for i := range c.Sentences {
		var y []int32
		if i < len(pred) {
			y = pred[i]
		}
		guess = guess[:0]
		for _, l := range y {
			tag := "?"
			if l >= 0 && int(l) < len(c.Tags) {
				tag = c.Tags[l]
			}
			guess = append(guess, tag)
		}
		e.Add(c.Sentences[i].Tags, guess)
	}
	return e.Counts()
}

// Metrics returns conlleval's chunk precision, recall and F1 and its token
// accuracy, in percent (NaN when undefined, see ChunkCounts).
func (c *Chunking) Metrics(pred [][]int32) []oracles.Metric {
	counts := c.Evaluate(pred)
	return []oracles.Metric{
		{Name: "chunk precision %", Value: counts.Precision()},
		{Name: "chunk recall %", Value: counts.Recall()},
		{Name: "chunk F1 %", Value: counts.F1()},
		{Name: "token accuracy %", Value: counts.Accuracy()},
	}
}

// Render writes sentence i with the chunks of labeling y in brackets, e.g.
// "[NP He] [VP reckons] [NP the current account deficit] ..."; tokens
// outside chunks stand alone. A nil y shows the gold chunks. The first
// input column (the words) gives the tokens.
func (c *Chunking) Render(i int, y []int32) string {
	s := &c.Sentences[i]
	tags := c.TagStrings(i, y)
	var b strings.Builder
	t := 0
	word := func(t int) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if len(s.Fields) > 0 {
			b.WriteString(s.Fields[0][t])
		} else {
			b.WriteString("_")
		}
	}
	for _, ch := range Chunks(tags) {
		for ; t < ch.Start; t++ {
			word(t)
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('[')
		b.WriteString(ch.Type)
		for ; t < ch.End; t++ {
			word(t)
		}
		b.WriteByte(']')
	}
	for ; t < len(tags); t++ {
		word(t)
	}
	return b.String()
}

// HoldOut returns the first sentences as one problem and the last ones, a
// fraction heldOut of them (rounded up), as another, with the same tags and
// dictionary (hence the same dimension): hold out the end of the training
// set to choose lambda. The dictionary stays the one of the whole training
// set, built from its inputs alone (no held-out tag is used).
func (c *Chunking) HoldOut(heldOut float64) (fit, held *Chunking, err error) {
	n := len(c.Sentences)
	k := int(math.Ceil(float64(n) * heldOut))
	if !(heldOut > 0 && heldOut < 1) || k >= n {
		return nil, nil, fmt.Errorf("chunking: held-out fraction %v of %d sentences leaves no sentence on one side", heldOut, n)
	}
	if fit, err = NewChunking(c.Sentences[:n-k:n-k], c.Dict, c.Tags); err != nil {
		return nil, nil, err
	}
	if held, err = NewChunking(c.Sentences[n-k:], c.Dict, c.Tags); err != nil {
		return nil, nil, err
	}
	return fit, held, nil
}
