package datasets

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// AlignmentModel holds the unsupervised word statistics of a corpus of
// unaligned sentence pairs, the raw material of the alignment features
// (see AlignmentFeatureNames): how many pairs hold each word and each pair
// of words (Dice coefficients), token counts (frequency ranks), and two
// unsupervised aligners trained by EM in both directions, English to
// French, t(f | e), and French to English, t(e | f), each with a NULL word
// on the generating side: IBM Model 1 (Brown et al. 1993), which the
// features read, and the diagonal IBM Model 2 of Dyer et al. (2013), which
// no feature reads. Words are compared in lower case.
//
// It is built by LoadHansards from the unaligned pairs only (never the
// gold pairs), and applies to any sentence pair: words it has not seen
// have no co-occurrences and translation probability tFloor.
type AlignmentModel struct {
	eVocab, fVocab map[string]int32 // lower-cased word -> id
	eDocs, fDocs   []int32          // pairs holding the word
	eTokens        []int32          // occurrences of the word
	fTokens        []int32
	eRank, fRank   []int32   // 1 + words with more tokens
	eLogFreq       []float32 // log(1 + tokens) / log(1 + most tokens)
	fLogFreq       []float32
	pairs          int // unaligned pairs

	slot map[uint64]int32 // (e, f) co-occurring in some pair -> slot
	cooc []int32          // pairs holding both words of a slot
	// IBM Model 1 and the diagonal aligner, English->French (t(f | e))
	// and French->English (t(e | f)).
	ibm1EF, ibm1FE direction
	diagEF, diagFE direction
	vocabSizes     [2]int
	ibmIteration   int
}

// tFloor is the translation probability of a word pair never seen
// together (and of words never seen).
const tFloor = 1e-7

func pairKey(e, f int32) uint64 { return uint64(uint32(e))<<32 | uint64(uint32(f)) }

// newAlignmentModel counts the statistics of pairs and trains the two
// aligners in both directions, iterations EM iterations each.
func newAlignmentModel(pairs []parallelPair, iterations int) (*AlignmentModel, error) {
	if len(pairs) == 0 {
		return nil, errors.New("alignment model: no sentence pairs")
	}
	if iterations < 1 {
		return nil, errors.New("alignment model: the aligners need at least one EM iteration")
	}
	m := &AlignmentModel{eVocab: map[string]int32{}, fVocab: map[string]int32{}, slot: map[uint64]int32{}, pairs: len(pairs), ibmIteration: iterations}
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
		E[s], F[s] = ids(m.eVocab, p.english), ids(m.fVocab, p.french)
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
func (m *AlignmentModel) train(E, F, slots [][]int32, src []int32, nSrc, nTgt int, englishSource bool, prior distortion, iterations int, init *direction) direction {
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
func (m *AlignmentModel) trainAligners(E, F [][]int32, slots [][]int32, iterations int) {
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

// sentenceStats are the model's statistics of one sentence pair: word ids,
// and for every (j, k), row-major, the slot of the word pair (-1 when never
// seen together), its Dice coefficient and the IBM Model 1 translation
// probabilities, posteriors and Viterbi links the features read.
type sentenceStats struct {
	e, f       []int32
	slot       []int32
	dice       []float64
	tEF, tFE   []float64 // t(f_k | e_j), t(e_j | f_k)
	postEF     []float64 // P(French k generated by English j), English->French
	postFE     []float64 // P(English j generated by French k), French->English
	vitEF      []int32   // the English word generating French k, -1 NULL
	vitFE      []int32   // the French word generating English j, -1 NULL
	rows, cols int
}

// stats computes the statistics of a sentence pair, with IBM Model 1.
func (m *AlignmentModel) stats(english, french []string) *sentenceStats {
	n, c := len(english), len(french)
	st := &sentenceStats{e: lookup(m.eVocab, english), f: lookup(m.fVocab, french), rows: n, cols: c,
		slot: make([]int32, n*c), dice: make([]float64, n*c)}
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
			st.dice[e] = 2 * float64(m.cooc[id]) / float64(m.eDocs[a]+m.fDocs[b])
		}
	}
	st.tEF, st.postEF, st.vitEF = m.align(st, m.ibm1EF, distortion{}, true)
	st.tFE, st.postFE, st.vitFE = m.align(st, m.ibm1FE, distortion{}, false)
	return st
}

// align returns, for the directional aligner d with prior pr (source
// words English when englishSource), the translation probability
// t(target | source) of every (j, k) (tFloor for pairs never seen
// together), the posterior that the target word is generated by the
// source word (NULL competing), and the Viterbi generator of every target
// word (-1: NULL).
func (m *AlignmentModel) align(st *sentenceStats, d direction, pr distortion, englishSource bool) (t, post []float64, vit []int32) {
	n, c := st.rows, st.cols
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

// dice returns the Dice coefficient 2 C(e, f) / (C(e) + C(f)) of an
// English and a French word over the model's sentence pairs, C counting
// the pairs that hold a word (or both), in lower case; 0 for words never
// seen together.
func (m *AlignmentModel) dice(english, french string) float64 {
	a, okA := m.eVocab[strings.ToLower(english)]
	b, okB := m.fVocab[strings.ToLower(french)]
	if !okA || !okB {
		return 0
	}
	id, ok := m.slot[pairKey(a, b)]
	if !ok {
		return 0
	}
	return 2 * float64(m.cooc[id]) / float64(m.eDocs[a]+m.fDocs[b])
}

// aligner names a pair of directional unsupervised aligners trained by
// AlignmentModel on its sentence pairs.
type aligner int

const (
	// ibm1 is IBM Model 1 (Brown et al. 1993), whose posteriors and
	// Viterbi links are features of the matching model.
	ibm1 aligner = iota
	// diagonalIBM2 is the reparameterized IBM Model 2 of Dyer, Chahuneau
	// and Smith (2013, fast_align), which favours links near the diagonal,
	// with fast_align's initial tension 4 and null probability 0.08 held
	// fixed, its translation probabilities trained by EM from Model 1's.
	// No feature of the matching model reads it: it labels the
	// HansardsIntersected training set and is a baseline.
	diagonalIBM2
)

// String returns "IBM Model 1" or "diagonal IBM Model 2".
func (a aligner) String() string {
	switch a {
	case ibm1:
		return "IBM Model 1"
	case diagonalIBM2:
		return "diagonal IBM Model 2"
	}
	return fmt.Sprintf("aligner(%d)", int(a))
}

// intersection returns the links of the intersection of the two Viterbi
// alignments of a sentence pair by aligner a: (j, k) such that French word
// k is most probably generated by English word j (rather than by another
// English word or NULL) and English word j by French word k. The links
// form a matching (each direction aligns a word at most once), in
// increasing j.
func (m *AlignmentModel) intersection(english, french []string, a aligner) [][2]int32 {
	st := m.stats(english, french)
	vitEF, vitFE := st.vitEF, st.vitFE
	if a == diagonalIBM2 {
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
