package datasets

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// SyntheticHansardsConfig configures WriteSyntheticHansards.
type SyntheticHansardsConfig struct {
	// Gold is the number of gold-aligned pairs; zero means 40.
	Gold int
	// Unaligned is the number of unaligned pairs; zero means 600.
	Unaligned int
	// MaxWords bounds the English words of a sentence (at least 2); zero
	// means 6.
	MaxWords int
	// Seed seeds the generator.
	Seed uint64
}

// toyLexicon is the English-French dictionary of the synthetic corpus:
// common words, cognates, punctuation, numbers, a word with two French
// words ("not": "ne pas") and accented French words that the gold French
// file writes in Latin-1.
var toyLexicon = [][2]string{
	{"the", "le"}, {"house", "maison"}, {"of", "de"}, {"minister", "ministre"}, {"is", "est"},
	{"government", "gouvernement"}, {"question", "question"}, {"speaker", "orateur"}, {"mr.", "monsieur"},
	{"not", "ne pas"}, {"summer", "été"}, {"very", "très"}, {"important", "important"}, {"we", "nous"},
	{"have", "avons"}, {"this", "cette"}, {"problem", "problème"}, {"canada", "canada"}, {"to", "à"},
	{"and", "et"}, {"farmers", "agriculteurs"}, {"program", "programme"}, {"time", "temps"},
	{",", ","}, {".", "."}, {"?", "?"}, {"1987", "1987"}, {"2", "2"}, {"\"", "«"}, {"member", "député"},
}

// WriteSyntheticHansards writes a small word-alignment corpus in the
// formats of the Hansards data into dir (created if needed): test.e,
// test.f (Latin-1, with guillemets and accented words), test.wa.nonullalign
// and 10k.fr-en.gz (the gold pairs again, in lower case, then the
// unaligned pairs), so that LoadHansards and every tool run without the
// real data. Sentences draw English words from a small dictionary (the
// first ones more often); the French side translates them in order, swaps
// neighbouring words now and then and may insert a "de" that the gold
// marks as a possible link of its left neighbour; "not" becomes "ne pas",
// two sure links.
func WriteSyntheticHansards(dir string, cfg SyntheticHansardsConfig) error {
	if cfg.Gold == 0 {
		cfg.Gold = 40
	}
	if cfg.Unaligned == 0 {
		cfg.Unaligned = 600
	}
	if cfg.MaxWords == 0 {
		cfg.MaxWords = 6
	}
	if cfg.Gold < 2 || cfg.Unaligned < 1 || cfg.MaxWords < 2 {
		return fmt.Errorf("synthetic hansards: %d gold pairs, %d unaligned pairs and %d words at most, want at least 2, 1 and 2", cfg.Gold, cfg.Unaligned, cfg.MaxWords)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 83))
	type pair struct {
		en, fr         []string
		sure, possible [][2]int
	}
	gen := func() pair {
		var p pair
		n := 2 + rng.IntN(cfg.MaxWords-1)
		for j := 0; j < n; j++ {
			w := toyLexicon[min(rng.IntN(len(toyLexicon)), rng.IntN(len(toyLexicon)))]
			p.en = append(p.en, w[0])
			for _, f := range strings.Fields(w[1]) {
				p.sure = append(p.sure, [2]int{j, len(p.fr)})
				p.fr = append(p.fr, f)
			}
			if rng.IntN(8) == 0 {
				p.possible = append(p.possible, [2]int{j, len(p.fr)})
				p.fr = append(p.fr, "de")
			}
		}
		// Swap neighbouring French words now and then, links following.
		for k := 0; k+1 < len(p.fr); k++ {
			if rng.IntN(5) != 0 {
				continue
			}
			p.fr[k], p.fr[k+1] = p.fr[k+1], p.fr[k]
			for _, links := range [][][2]int{p.sure, p.possible} {
				for t := range links {
					switch links[t][1] {
					case k:
						links[t][1] = k + 1
					case k + 1:
						links[t][1] = k
					}
				}
			}
			k++
		}
		return p
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("synthetic hansards: %w", err)
	}
	var en, fr, links, pairs bytes.Buffer
	for s := 1; s <= cfg.Gold; s++ {
		p := gen()
		fmt.Fprintf(&en, "<s snum=%04d> %s </s>\n", s, strings.Join(p.en, " "))
		fmt.Fprintf(&fr, "<s snum=%04d> %s </s>\n", s, toLatin1(strings.Join(p.fr, " ")))
		for _, set := range []struct {
			links [][2]int
			kind  string
		}{{p.sure, "S"}, {p.possible, "P"}} {
			for _, l := range set.links {
				fmt.Fprintf(&links, "%04d %d %d %s\n", s, l[0]+1, l[1]+1, set.kind)
			}
		}
		fmt.Fprintf(&pairs, "%s ||| %s\n", strings.ToLower(strings.Join(p.fr, " ")), strings.ToLower(strings.Join(p.en, " ")))
	}
	for s := 0; s < cfg.Unaligned; s++ {
		p := gen()
		fmt.Fprintf(&pairs, "%s ||| %s\n", strings.Join(p.fr, " "), strings.Join(p.en, " "))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(pairs.Bytes())
	zw.Close()
	for _, f := range []struct {
		name string
		data []byte
	}{{HansardsEnglish, en.Bytes()}, {HansardsFrench, fr.Bytes()}, {HansardsLinks, links.Bytes()}, {HansardsPairs, gz.Bytes()}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("synthetic hansards: %w", err)
		}
	}
	return nil
}

// toLatin1 encodes s in ISO-8859-1 (s holds no rune above U+00FF).
func toLatin1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = append(b, byte(r))
	}
	return string(b)
}
