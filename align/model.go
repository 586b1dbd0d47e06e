package align

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Pair is a sentence pair: its words and, when it has them, its gold word
// alignment. Positions are 0-based: a link (j, k) aligns English word j
// with French word k.
type Pair struct {
	// ID identifies the pair in its corpus (in the Hansards data: the
	// sentence number of the gold files, or the 1-based line of the
	// unaligned pairs file).
	ID      int
	English []string
	French  []string
	// Sure lists the sure links, Possible the links marked possible (P);
	// sure links are possible too, and are not repeated there.
	Sure     [][2]int32
	Possible [][2]int32
}

// Model holds the unsupervised word statistics of a corpus of unaligned
// sentence pairs: how many pairs hold each word and each pair of words
// (Dice coefficients), token counts (frequency ranks), and two
// unsupervised aligners trained by EM in both directions, English to
// French, t(f | e), and French to English, t(e | f), each with a NULL word
// on the generating side: IBM Model 1 (Brown et al. 1993) and the diagonal
// IBM Model 2 of Dyer et al. (2013). Words are compared in lower case.
//
// Train builds it; it applies to any sentence pair (Sentence,
// Intersection, Baselines): words it has not seen have no co-occurrences
// and translation probability 1e-7.
type Model struct {
	eVocab, fVocab map[string]int32 // lower-cased word -> id
	eDocs, fDocs   []int32          // pairs holding the word
	eTokens        []int32          // occurrences of the word
	fTokens        []int32
	eRank, fRank   []int32   // 1 + words with more tokens
	eLogFreq       []float32 // log(1 + tokens) / log(1 + most tokens)
	fLogFreq       []float32

	slot map[uint64]int32 // (e, f) co-occurring in some pair -> slot
	cooc []int32          // pairs holding both words of a slot
	// IBM Model 1 and the diagonal aligner, English->French (t(f | e))
	// and French->English (t(e | f)).
	ibm1EF, ibm1FE direction
	diagEF, diagFE direction
	vocabSizes     [2]int
}

// tFloor is the translation probability of a word pair never seen
// together (and of words never seen).
const tFloor = 1e-7

func pairKey(e, f int32) uint64 { return uint64(uint32(e))<<32 | uint64(uint32(f)) }

// Train counts the statistics of the sentence pairs (their words only,
// never their links) and trains the two aligners in both directions,
// iterations EM iterations each: IBM Model 1 from uniform parameters, then
// the diagonal IBM Model 2 from Model 1's.
func Train(pairs []Pair, iterations int) (*Model, error) {
	if len(pairs) == 0 {
		return nil, errors.New("align: no sentence pairs")
	}
	if iterations < 1 {
		return nil, errors.New("align: the aligners need at least one EM iteration")
	}
	m := &Model{eVocab: map[string]int32{}, fVocab: map[string]int32{}, slot: map[uint64]int32{}}
	ids := func(vocab map[string]int32, words []string) []int32 {
		out := make([]int32, len(words))
		for k, w := range words {
			w = strings.ToLower(w)
			id, ok := vocab[w]
			if !ok {
				id = int32(len(vocab))
				vocab[w] = id
			}
			out[k] = id
		}
		return out
	}
	E := make([][]int32, len(pairs))
	F := make([][]int32, len(pairs))
	for s, p := range pairs {
		E[s], F[s] = ids(m.eVocab, p.English), ids(m.fVocab, p.French)
	}
	ne, nf := len(m.eVocab), len(m.fVocab)
	m.vocabSizes = [2]int{ne, nf}
	eTok, fTok := make([]int32, ne), make([]int32, nf)
	m.eDocs, m.fDocs = make([]int32, ne), make([]int32, nf)
	eStamp, fStamp := make([]int32, ne), make([]int32, nf)
	// slots[s] lists the slot of every (j, k) of pair s, row-major.
	slots := make([][]int32, len(pairs))
	var stamp []int32 // last pair that counted a slot's co-occurrence, +1
	for s := range pairs {
		e, f := E[s], F[s]
		for _, w := range e {
			eTok[w]++
			if eStamp[w] != int32(s+1) {
				eStamp[w] = int32(s + 1)
				m.eDocs[w]++
			}
		}
		for _, w := range f {
			fTok[w]++
			if fStamp[w] != int32(s+1) {
				fStamp[w] = int32(s + 1)
				m.fDocs[w]++
			}
		}
		sl := make([]int32, len(e)*len(f))
		for j, a := range e {
			for k, b := range f {
				key := pairKey(a, b)
				id, ok := m.slot[key]
				if !ok {
					id = int32(len(m.cooc))
					m.slot[key] = id
					m.cooc = append(m.cooc, 0)
					stamp = append(stamp, 0)
				}
				if stamp[id] != int32(s+1) {
					stamp[id] = int32(s + 1)
					m.cooc[id]++
				}
				sl[j*len(f)+k] = id
			}
		}
		slots[s] = sl
	}
	m.eTokens, m.fTokens = eTok, fTok
	m.eRank, m.eLogFreq = ranks(eTok)
	m.fRank, m.fLogFreq = ranks(fTok)
	m.trainAligners(E, F, slots, iterations)
	return m, nil
}

// ranks returns the frequency rank of every word (1 + the number of words
// with more tokens) and its normalized log frequency.
func ranks(tokens []int32) (rank []int32, logFreq []float32) {
	order := make([]int32, len(tokens))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return int(tokens[b]) - int(tokens[a]) })
	rank = make([]int32, len(tokens))
	logFreq = make([]float32, len(tokens))
	top := math.Log1p(float64(tokens[order[0]]))
	for r, w := range order {
		if r > 0 && tokens[w] == tokens[order[r-1]] {
			rank[w] = rank[order[r-1]]
		} else {
			rank[w] = int32(r + 1)
		}
		logFreq[w] = float32(math.Log1p(float64(tokens[w])) / top)
	}
	return rank, logFreq
}

// direction holds the parameters of a directional word aligner: t[slot] =
// t(target word | source word) of every co-occurring pair, tNull[w] =
// t(w | NULL) of every target word.
type direction struct {
	t, tNull []float64
}

// distortion is the alignment prior of a directional aligner: IBM Model 1
// (Brown et al. 1993) when tension is 0, every source word and NULL
// equally likely; otherwise the reparameterized IBM Model 2 of Dyer,
// Chahuneau and Smith (2013, "fast_align"), in which target word b (of nt)
// is generated by NULL with probability p0 and by source word a (of ns)
// with probability (1 - p0) exp(-tension |(b+1)/nt - (a+1)/ns|) / Z_b,
// favouring the diagonal.
type distortion struct {
	tension, p0 float64
}

// diagonalPrior is the fixed prior of the diagonal aligner: fast_align's
// initial tension and null probability (it does not re-estimate them
// here).
var diagonalPrior = distortion{tension: 4, p0: 0.08}

// weights fills w[a] with the prior of source word a of ns for target word
// b of nt, and returns the prior of NULL.
func (d distortion) weights(w []float64, b, nt, ns int) (null float64) {
	w = w[:ns]
	if d.tension == 0 {
		for a := range w {
			w[a] = 1
		}
		return 1
	}
	var z float64
	for a := range w {
		w[a] = math.Exp(-d.tension * math.Abs(float64(b+1)/float64(nt)-float64(a+1)/float64(ns)))
		z += w[a]
	}
	for a := range w {
		w[a] *= (1 - d.p0) / z
	}
	return d.p0
}

// train runs EM for the directional aligner whose source words are the
// English ones (englishSource) or the French ones (Brown et al. 1993,
// Sec. 4; Dyer et al. 2013): in each E-step the posterior of target word b
// being generated by source word a is prior(a) t(b | a) over its sum with
// NULL's; the M-step renormalizes the expected counts per source word (and
// for NULL). The translation parameters start from init, or uniform when
// init is nil.
func (m *Model) train(E, F, slots [][]int32, src []int32, nSrc, nTgt int, englishSource bool, prior distortion, iterations int, init *direction) direction {
	S := len(m.cooc)
	d := direction{t: make([]float64, S), tNull: make([]float64, nTgt)}
	if init != nil {
		copy(d.t, init.t)
		copy(d.tNull, init.tNull)
	} else {
		for k := range d.t {
			d.t[k] = 1
		}
		for k := range d.tNull {
			d.tNull[k] = 1
		}
	}
	t, tNull := d.t, d.tNull
	cnt, cntNull := make([]float64, S), make([]float64, nTgt)
	tot := make([]float64, nSrc)
	var pw []float64
	for it := 0; it < iterations; it++ {
		clear(cnt)
		clear(cntNull)
		clear(tot)
		var totNull float64
		for s, sl := range slots {
			source, target := E[s], F[s]
			sa, sb := len(F[s]), 1
			if !englishSource {
				source, target = F[s], E[s]
				sa, sb = 1, len(F[s])
			}
			if cap(pw) < len(source) {
				pw = make([]float64, len(source))
			}
			pw = pw[:len(source)]
			for b, w := range target {
				pnull := prior.weights(pw, b, len(target), len(source))
				z := pnull * tNull[w]
				for a := range source {
					z += pw[a] * t[sl[a*sa+b*sb]]
				}
				for a := range source {
					id := sl[a*sa+b*sb]
					c := pw[a] * t[id] / z
					cnt[id] += c
					tot[src[id]] += c
				}
				c := pnull * tNull[w] / z
				cntNull[w] += c
				totNull += c
			}
		}
		for id := range t {
			t[id] = cnt[id] / tot[src[id]]
		}
		for w := range tNull {
			tNull[w] = cntNull[w] / totNull
		}
	}
	return d
}

// trainAligners trains IBM Model 1 in both directions from uniform
// parameters, then the diagonal aligner (diagonalPrior) in both
// directions from Model 1's parameters, each for the given EM iterations.
func (m *Model) trainAligners(E, F [][]int32, slots [][]int32, iterations int) {
	ne, nf := m.vocabSizes[0], m.vocabSizes[1]
	S := len(m.cooc)
	slotE, slotF := make([]int32, S), make([]int32, S)
	for key, id := range m.slot {
		slotE[id], slotF[id] = int32(key>>32), int32(uint32(key))
	}
	m.ibm1EF = m.train(E, F, slots, slotE, ne, nf, true, distortion{}, iterations, nil)
	m.ibm1FE = m.train(E, F, slots, slotF, nf, ne, false, distortion{}, iterations, nil)
	m.diagEF = m.train(E, F, slots, slotE, ne, nf, true, diagonalPrior, iterations, &m.ibm1EF)
	m.diagFE = m.train(E, F, slots, slotF, nf, ne, false, diagonalPrior, iterations, &m.ibm1FE)
}

// lookup returns the word ids of a sentence, -1 for words the model has
// not seen.
func lookup(vocab map[string]int32, words []string) []int32 {
	out := make([]int32, len(words))
	for k, w := range words {
		id, ok := vocab[strings.ToLower(w)]
		if !ok {
			id = -1
		}
		out[k] = id
	}
	return out
}

// Word describes a word of a sentence pair under a Model.
type Word struct {
	// Tokens is the number of occurrences of the word (in lower case) in
	// the model's pairs; 0 for a word the model has not seen.
	Tokens int32
	// Rank is the frequency rank of the word among those of its language,
	// 1 + the number of words with more tokens; 0 when unseen.
	Rank int32
	// LogFreq is ln(1 + Tokens) / ln(1 + the tokens of the most frequent
	// word of its language); 0 when unseen.
	LogFreq float64
}

// Sentence holds a Model's statistics of one sentence pair of Rows English
// and Cols French words. The tables over word pairs (j, k) are row-major:
// entry j*Cols + k.
type Sentence struct {
	Rows, Cols      int
	English, French []Word
	// Dice is the Dice coefficient 2 C(e_j, f_k) / (C(e_j) + C(f_k)), C
	// counting the model's pairs that hold the word (or both); 0 for
	// words never seen together.
	Dice []float64
	// TEF and TFE are IBM Model 1's translation probabilities t(f_k | e_j)
	// and t(e_j | f_k), at least 1e-7.
	TEF, TFE []float64
	// PostEF is IBM Model 1's English->French posterior that French word k
	// is generated by English word j (NULL competing), PostFE the
	// French->English posterior that English word j is generated by
	// French word k.
	PostEF, PostFE []float64
	// ViterbiEF[k] is the English word most probably generating French
	// word k under IBM Model 1 English->French, -1 for NULL; ViterbiFE[j]
	// the French word generating English word j, French->English.
	ViterbiEF, ViterbiFE []int32

	e, f []int32 // word ids, -1 for words the model has not seen
	slot []int32 // the co-occurrence slot of every (j, k), -1 when never seen together
}

// Sentence computes the statistics of a sentence pair, with IBM Model 1.
func (m *Model) Sentence(english, french []string) *Sentence {
	n, c := len(english), len(french)
	st := &Sentence{e: lookup(m.eVocab, english), f: lookup(m.fVocab, french), Rows: n, Cols: c,
		slot: make([]int32, n*c), Dice: make([]float64, n*c)}
	st.English = words(st.e, m.eTokens, m.eRank, m.eLogFreq)
	st.French = words(st.f, m.fTokens, m.fRank, m.fLogFreq)
	for j, a := range st.e {
		for k, b := range st.f {
			e := j*c + k
			st.slot[e] = -1
			if a < 0 || b < 0 {
				continue
			}
			id, ok := m.slot[pairKey(a, b)]
			if !ok {
				continue
			}
			st.slot[e] = id
			st.Dice[e] = 2 * float64(m.cooc[id]) / float64(m.eDocs[a]+m.fDocs[b])
		}
	}
	st.TEF, st.PostEF, st.ViterbiEF = m.align(st, m.ibm1EF, distortion{}, true)
	st.TFE, st.PostFE, st.ViterbiFE = m.align(st, m.ibm1FE, distortion{}, false)
	return st
}

// words returns the statistics of the words of ids (-1: unseen) of one
// language.
func words(ids, tokens, rank []int32, logFreq []float32) []Word {
	out := make([]Word, len(ids))
	for k, id := range ids {
		if id >= 0 {
			out[k] = Word{Tokens: tokens[id], Rank: rank[id], LogFreq: float64(logFreq[id])}
		}
	}
	return out
}

// align returns, for the directional aligner d with prior pr (source
// words English when englishSource), the translation probability
// t(target | source) of every (j, k) (tFloor for pairs never seen
// together), the posterior that the target word is generated by the
// source word (NULL competing), and the Viterbi generator of every target
// word (-1: NULL).
func (m *Model) align(st *Sentence, d direction, pr distortion, englishSource bool) (t, post []float64, vit []int32) {
	n, c := st.Rows, st.Cols
	t, post = make([]float64, n*c), make([]float64, n*c)
	for e, id := range st.slot {
		t[e] = tFloor
		if id >= 0 {
			t[e] = math.Max(d.t[id], tFloor)
		}
	}
	// Target b of nt and source a of ns are (k, j) or (j, k); their edge
	// is e = a*sa + b*sb.
	targets, ns, sa, sb := st.f, n, c, 1
	if !englishSource {
		targets, ns, sa, sb = st.e, c, 1, c
	}
	vit = make([]int32, len(targets))
	pw := make([]float64, ns)
	for b, w := range targets {
		pnull := pr.weights(pw, b, len(targets), ns)
		tn := tFloor
		if w >= 0 {
			tn = math.Max(d.tNull[w], tFloor)
		}
		z, best, arg := pnull*tn, pnull*tn, int32(-1)
		for a := 0; a < ns; a++ {
			v := pw[a] * t[a*sa+b*sb]
			z += v
			if v > best {
				best, arg = v, int32(a)
			}
		}
		for a := 0; a < ns; a++ {
			post[a*sa+b*sb] = pw[a] * t[a*sa+b*sb] / z
		}
		vit[b] = arg
	}
	return t, post, vit
}

// Aligner names a pair of directional unsupervised aligners trained by
// Train.
type Aligner int

const (
	// IBM1 is IBM Model 1 (Brown et al. 1993).
	IBM1 Aligner = iota
	// DiagonalIBM2 is the reparameterized IBM Model 2 of Dyer, Chahuneau
	// and Smith (2013, fast_align), which favours links near the diagonal,
	// with fast_align's initial tension 4 and null probability 0.08 held
	// fixed, its translation probabilities trained by EM from Model 1's.
	DiagonalIBM2
)

// String returns "IBM Model 1" or "diagonal IBM Model 2".
func (a Aligner) String() string {
	switch a {
	case IBM1:
		return "IBM Model 1"
	case DiagonalIBM2:
		return "diagonal IBM Model 2"
	}
	return fmt.Sprintf("Aligner(%d)", int(a))
}

// Intersection returns the links of the intersection of the two Viterbi
// alignments of a sentence pair by aligner a: (j, k) such that French word
// k is most probably generated by English word j (rather than by another
// English word or NULL) and English word j by French word k. The links
// form a matching (each direction aligns a word at most once), in
// increasing j.
func (m *Model) Intersection(english, french []string, a Aligner) [][2]int32 {
	st := m.Sentence(english, french)
	vitEF, vitFE := st.ViterbiEF, st.ViterbiFE
	if a == DiagonalIBM2 {
		_, _, vitEF = m.align(st, m.diagEF, diagonalPrior, true)
		_, _, vitFE = m.align(st, m.diagFE, diagonalPrior, false)
	}
	var links [][2]int32
	for j, k := range vitFE {
		if k >= 0 && vitEF[k] == int32(j) {
			links = append(links, [2]int32{int32(j), k})
		}
	}
	return links
}
