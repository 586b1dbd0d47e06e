package datasets

import (
	"testing"

	"github.com/fwstruct/fwstruct/internal/realdata"
)

// BenchmarkLoadConll measures reading and feature extraction of the whole
// CoNLL-2000 corpus (8,936 + 2,012 sentences), and its three stages:
// parsing both files, building the attribute dictionary on the training
// sentences, and building both chain problems (attribute vectors and
// oracles.NewChain).
func BenchmarkLoadConll(b *testing.B) {
	realdata.File(b, "conll2000/train.txt.gz")
	root := realdata.Dir(b)
	paths, err := Conll.Paths(root)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := LoadConll(root, ConllOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	var train, test []Sentence
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if train, err = ReadColumnFile(paths[0], ColumnFormat{}); err != nil {
				b.Fatal(err)
			}
			if test, err = ReadColumnFile(paths[1], ColumnFormat{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	var dict *Dictionary
	b.Run("dictionary", func(b *testing.B) {
		for b.Loop() {
			if dict, err = BuildDictionary(train, AttributeConfig{MinCount: DefaultMinCount}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("chains", func(b *testing.B) {
		for b.Loop() {
			tr, err := NewChunking(train, dict, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := NewChunking(test, dict, tr.Tags); err != nil {
				b.Fatal(err)
			}
		}
	})
}
