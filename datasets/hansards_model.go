package datasets

import (
	"errors"
	"math"
	"slices"
	"strings"
)

// AlignmentModel holds the unsupervised word statistics of a corpus of
// unaligned sentence pairs, the raw material of the alignment features
// (see AlignmentFeatureNames): how many pairs hold each word and each pair
// of words (Dice coefficients), token counts (frequency ranks), and IBM
// Model 1 (Brown et al. 1993) trained by EM in both directions, English to
// French, t(f | e), and French to English, t(e | f), each with a NULL word
// on the generating side. Words are compared in lower case.
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

	slot         map[uint64]int32 // (e, f) co-occurring in some pair -> slot
	cooc         []int32          // pairs holding both words of a slot
	tEF, tFE     []float64        // t(f | e), t(e | f) of a slot
	tNullEF      []float64        // t(f | NULL), by French word
	tNullFE      []float64        // t(e | NULL), by English word
	vocabSizes   [2]int
	ibmIteration int
}

// tFloor is the translation probability of a word pair never seen
// together (and of words never seen).
const tFloor = 1e-7

func pairKey(e, f int32) uint64 { return uint64(uint32(e))<<32 | uint64(uint32(f)) }

// newAlignmentModel counts the statistics of pairs and trains IBM Model 1
// in both directions for iterations EM iterations.
func newAlignmentModel(pairs []parallelPair, iterations int) (*AlignmentModel, error) {
	if len(pairs) == 0 {
		return nil, errors.New("alignment model: no sentence pairs")
	}
	if iterations < 1 {
		return nil, errors.New("alignment model: IBM Model 1 needs at least one EM iteration")
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
	m.trainIBM1(E, F, slots, iterations)
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

// trainIBM1 runs EM for IBM Model 1 in both directions (Brown et al. 1993,
// Sec. 4): in each E-step, the posterior of French word k being generated
// by English word j (or NULL) is t(f_k | e_j) / sum_j' t(f_k | e_j'); the
// M-step renormalizes the expected counts per generating word. The
// parameters start uniform.
func (m *AlignmentModel) trainIBM1(E, F [][]int32, slots [][]int32, iterations int) {
	ne, nf := m.vocabSizes[0], m.vocabSizes[1]
	S := len(m.cooc)
	slotE, slotF := make([]int32, S), make([]int32, S)
	for key, id := range m.slot {
		slotE[id], slotF[id] = int32(key>>32), int32(uint32(key))
	}
	// One direction: t[slot] = t(target | source), tNull[w] =
	// t(w | NULL); src maps a slot to its source word. The slot of source
	// word a and target word b of pair s is slots[s][a*sa + b*sb]: the
	// English words index the rows.
	train := func(src []int32, nSrc, nTgt int, englishSource bool) (t, tNull []float64) {
		t, tNull = make([]float64, S), make([]float64, nTgt)
		for k := range t {
			t[k] = 1
		}
		for k := range tNull {
			tNull[k] = 1
		}
		cnt, cntNull := make([]float64, S), make([]float64, nTgt)
		tot := make([]float64, nSrc)
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
				for b, w := range target {
					z := tNull[w]
					for a := range source {
						z += t[sl[a*sa+b*sb]]
					}
					for a := range source {
						id := sl[a*sa+b*sb]
						d := t[id] / z
						cnt[id] += d
						tot[src[id]] += d
					}
					d := tNull[w] / z
					cntNull[w] += d
					totNull += d
				}
			}
			for id := range t {
				t[id] = cnt[id] / tot[src[id]]
			}
			for w := range tNull {
				tNull[w] = cntNull[w] / totNull
			}
		}
		return t, tNull
	}
	m.tEF, m.tNullEF = train(slotE, ne, nf, true)
	m.tFE, m.tNullFE = train(slotF, nf, ne, false)
}

// Pairs returns the number of sentence pairs the model was built from.
func (m *AlignmentModel) Pairs() int { return m.pairs }

// word ids of a sentence, -1 for words the model has not seen.
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
// the Dice coefficient and the IBM Model 1 translation probabilities of
// every (j, k), row-major.
type sentenceStats struct {
	e, f       []int32
	dice       []float64
	tEF, tFE   []float64 // t(f_k | e_j), t(e_j | f_k)
	nullEF     []float64 // t(f_k | NULL), by k
	nullFE     []float64 // t(e_j | NULL), by j
	postEF     []float64 // P(French k generated by English j), E->F model
	postFE     []float64 // P(English j generated by French k), F->E model
	vitEF      []int32   // the English word generating French k, -1 NULL
	vitFE      []int32   // the French word generating English j, -1 NULL
	rows, cols int
}

// stats computes the statistics of a sentence pair.
func (m *AlignmentModel) stats(english, french []string) *sentenceStats {
	n, c := len(english), len(french)
	st := &sentenceStats{e: lookup(m.eVocab, english), f: lookup(m.fVocab, french), rows: n, cols: c,
		dice: make([]float64, n*c), tEF: make([]float64, n*c), tFE: make([]float64, n*c),
		nullEF: make([]float64, c), nullFE: make([]float64, n), postEF: make([]float64, n*c), postFE: make([]float64, n*c),
		vitEF: make([]int32, c), vitFE: make([]int32, n)}
	for j, a := range st.e {
		st.nullFE[j] = tFloor
		if a >= 0 {
			st.nullFE[j] = math.Max(m.tNullFE[a], tFloor)
		}
		for k, b := range st.f {
			e := j*c + k
			st.tEF[e], st.tFE[e] = tFloor, tFloor
			if a < 0 || b < 0 {
				continue
			}
			id, ok := m.slot[pairKey(a, b)]
			if !ok {
				continue
			}
			st.dice[e] = 2 * float64(m.cooc[id]) / float64(m.eDocs[a]+m.fDocs[b])
			st.tEF[e] = math.Max(m.tEF[id], tFloor)
			st.tFE[e] = math.Max(m.tFE[id], tFloor)
		}
	}
	for k, b := range st.f {
		st.nullEF[k] = tFloor
		if b >= 0 {
			st.nullEF[k] = math.Max(m.tNullEF[b], tFloor)
		}
	}
	// E->F: French word k is generated by English j or NULL.
	for k := 0; k < c; k++ {
		z, best, arg := st.nullEF[k], st.nullEF[k], int32(-1)
		for j := 0; j < n; j++ {
			t := st.tEF[j*c+k]
			z += t
			if t > best {
				best, arg = t, int32(j)
			}
		}
		for j := 0; j < n; j++ {
			st.postEF[j*c+k] = st.tEF[j*c+k] / z
		}
		st.vitEF[k] = arg
	}
	// F->E: English word j is generated by French k or NULL.
	for j := 0; j < n; j++ {
		z, best, arg := st.nullFE[j], st.nullFE[j], int32(-1)
		for k := 0; k < c; k++ {
			t := st.tFE[j*c+k]
			z += t
			if t > best {
				best, arg = t, int32(k)
			}
		}
		for k := 0; k < c; k++ {
			st.postFE[j*c+k] = st.tFE[j*c+k] / z
		}
		st.vitFE[j] = arg
	}
	return st
}

// Dice returns the Dice coefficient 2 C(e, f) / (C(e) + C(f)) of an
// English and a French word over the model's sentence pairs, C counting
// the pairs that hold a word (or both), in lower case; 0 for words never
// seen together.
func (m *AlignmentModel) Dice(english, french string) float64 {
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

// Intersection returns the links of the intersection of the two IBM Model
// 1 Viterbi alignments of a sentence pair: (j, k) such that French word k
// is most probably generated by English word j (t(f_k | e_j) beats every
// other English word and NULL) and English word j by French word k. The
// links form a matching (each direction aligns a word at most once), in
// increasing j.
func (m *AlignmentModel) Intersection(english, french []string) [][2]int32 {
	st := m.stats(english, french)
	var links [][2]int32
	for j, k := range st.vitFE {
		if k >= 0 && st.vitEF[k] == int32(j) {
			links = append(links, [2]int32{int32(j), k})
		}
	}
	return links
}
