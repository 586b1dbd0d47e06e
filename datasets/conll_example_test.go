package datasets_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
)

const corpus = `He PRP B-NP
reckons VBZ B-VP
the DT B-NP
deficit NN I-NP
. . O

Rockwell NNP B-NP
said VBD B-VP
. . O
`

func ExampleReadColumns() {
	sents, err := datasets.ReadColumns(strings.NewReader(corpus), "corpus.txt", datasets.ColumnFormat{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sents {
		fmt.Println(s.Line, s.Fields[0], s.Fields[1], s.Tags)
	}
	_, err = datasets.ReadColumns(strings.NewReader("He PRP B-NP\nreckons VBZ\n"), "bad.txt", datasets.ColumnFormat{})
	fmt.Println(err)
	// Output:
	// 1 [He reckons the deficit .] [PRP VBZ DT NN .] [B-NP B-VP B-NP I-NP O]
	// 7 [Rockwell said .] [NNP VBD .] [B-NP B-VP O]
	// conll: bad.txt:2: 2 fields, want 3 as on line 1
}

func ExampleChunking() {
	sents, err := datasets.ReadColumns(strings.NewReader(corpus), "corpus.txt", datasets.ColumnFormat{})
	if err != nil {
		log.Fatal(err)
	}
	// CRFsuite's chunking attributes, every one kept (MinCount 1).
	dict, err := datasets.BuildDictionary(sents, datasets.AttributeConfig{MinCount: 1})
	if err != nil {
		log.Fatal(err)
	}
	train, err := datasets.NewChunking(sents, dict, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("tags:", train.Tags)
	fmt.Println("features:", dict.Len(), "d:", train.Dim())
	fmt.Println("first feature of the first token:", dict.Name(int(train.Features(0, 0).Idx[0])))
	fmt.Println(train.Render(0, nil))
	// A prediction that runs the noun phrase over the verb.
	pred := [][]int32{{0, 2, 0, 2, 3}, train.Truth(1)}
	fmt.Println(train.Render(0, pred[0]))
	for _, m := range train.Metrics(pred) {
		fmt.Printf("%s %.1f\n", m.Name, m.Value)
	}
	// Output:
	// tags: [B-NP B-VP I-NP O]
	// features: 96 d: 412
	// first feature of the first token: w[0]=He
	// [NP He] [VP reckons] [NP the deficit] .
	// [NP He reckons] [NP the deficit] .
	// chunk precision % 75.0
	// chunk recall % 60.0
	// chunk F1 % 66.7
	// token accuracy % 87.5
}

func ExampleChunkEval() {
	var e datasets.ChunkEval
	// IOB1 gold (I-NP opens a chunk after O), IOB2 guess: the same chunks.
	e.Add([]string{"I-NP", "I-NP", "O", "B-VP"}, []string{"B-NP", "I-NP", "O", "B-VP"})
	// The guess splits the noun phrase in two.
	e.Add([]string{"B-NP", "I-NP", "I-NP"}, []string{"B-NP", "B-NP", "I-NP"})
	c := e.Counts()
	fmt.Printf("%+v\n", c)
	fmt.Printf("precision %.2f recall %.2f F1 %.2f accuracy %.2f\n", c.Precision(), c.Recall(), c.F1(), c.Accuracy())
	// Output:
	// {Correct:2 Guessed:4 Gold:3 CorrectTags:5 Tokens:7}
	// precision 50.00 recall 66.67 F1 57.14 accuracy 71.43
}

// LoadConll finds CoNLL-2000 under a data root (here $FWSTRUCT_DATA) and
// returns the chain problems of Osokin et al. (2016, App. I.2).
func ExampleLoadConll() {
	train, test, err := datasets.LoadConll(os.Getenv(datasets.EnvVar), datasets.ConllOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(train.Len(), "training and", test.Len(), "test sentences,", len(train.Tags), "tags")
	fmt.Println(train.Dict.Len(), "attributes, d =", train.Dim())
	// Hold out the last 10% of the training sentences to choose lambda.
	fit, held, err := train.HoldOut(0.1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fit.Len(), "+", held.Len(), "sentences")
}
