package datasets_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
)

func ExampleSyntheticOCR() {
	train, test, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 100, TestWords: 50, Seed: 42})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(train.Len(), "training words,", test.Len(), "test words")
	fmt.Println("labels:", train.NumLabels(), "features:", train.NumFeatures(), "dimension:", train.Dim())
	// Output:
	// 100 training words, 50 test words
	// labels: 26 features: 128 dimension: 4082
}

func ExampleSynthetic() {
	train, _, err := datasets.Synthetic(datasets.SyntheticConfig{TrainWords: 3, TestWords: 1, Seed: 1, FlipNoise: 0.01})
	if err != nil {
		log.Fatal(err)
	}
	for _, w := range train {
		fmt.Println(w.ID, w)
	}
	// The first letter of the first word, as a 16 x 8 image.
	img := train[0].Pixels[0]
	for r := 0; r < datasets.LetterRows; r++ {
		var sb strings.Builder
		for _, v := range img[r*datasets.LetterCols : (r+1)*datasets.LetterCols] {
			sb.WriteByte(".#"[v])
		}
		fmt.Println(sb.String())
	}
	// Output:
	// 1 ypoqgpe
	// 2 yanv
	// 3 jea
	// ........
	// ........
	// ........
	// ........
	// ........
	// ........
	// ........
	// ........
	// ........
	// ........
	// .#..#..#
	// .#.##..#
	// .###...#
	// .#######
	// ........
	// ........
}

func ExampleParseSplit() {
	split, err := datasets.ParseSplit("large")
	if err != nil {
		log.Fatal(err)
	}
	words := []datasets.Word{{ID: 1, Fold: 0}, {ID: 2, Fold: 4}, {ID: 3, Fold: 9}}
	train, test := datasets.SplitWords(words, split)
	fmt.Println(split, len(train), len(test))
	_, err = datasets.ParseSplit("medium")
	fmt.Println(err)
	// Output:
	// large 2 1
	// unknown OCR split "medium" (want small or large)
}

func ExampleReadLetterData() {
	// Two letters forming the word "hi": id letter next_id word_id position
	// fold, then 128 pixels.
	pixels := strings.Repeat("\t0", 120) + strings.Repeat("\t1", 8)
	data := "1\th\t2\t1\t1\t0" + pixels + "\n" +
		"2\ti\t-1\t1\t2\t0" + pixels + "\n"
	words, err := datasets.ReadLetterData(strings.NewReader(data), "hi.data")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(words), words[0], words[0].Letters)

	_, err = datasets.ReadLetterData(strings.NewReader("1\th\t2"), "bad.data")
	fmt.Println(err)
	// Output:
	// 1 hi [7 8]
	// ocr: bad.data:1: 3 fields, want 134 (id letter next_id word_id position fold and 128 pixels)
}

func ExampleReadUSPS() {
	line := "6.0000 " + strings.Repeat("-1 ", 255) + "0.5\n"
	x, y, err := datasets.ReadUSPS(strings.NewReader(line), "zip.train")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(x), y[0], x[0].Len())
	// Output: 1 6 256
}

// Find the OCR data ($FWSTRUCT_DATA, then the user cache), downloading it
// into the cache when it is in neither; any other error (such as
// $FWSTRUCT_DATA naming a missing folder) is the user's to fix.
func ExampleLocate() {
	root, err := datasets.Locate(datasets.OCR, "")
	if errors.Is(err, datasets.ErrNotFound) {
		if err := datasets.Download(context.Background(), datasets.OCR, "", nil); err != nil {
			log.Fatal(err)
		}
		root, err = datasets.CacheDir()
	}
	if err != nil {
		log.Fatal(err)
	}
	train, test, err := datasets.LoadOCR(root, datasets.SplitSmall)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(train.Len(), test.Len())
}

func ExampleReadSVMLight() {
	data := `# label index:value ... (1-based indices, detected)
+1 1:0.5 3:2
-1 2:1   # a comment
2.0 3:-1
`
	ex, err := datasets.ReadSVMLight(strings.NewReader(data), "toy.svm", datasets.SVMLightOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ex.Len(), "examples,", ex.NumFeatures, "features, labels", ex.Labels)
	fmt.Println("first example (0-based):", ex.X[0].Idx, ex.X[0].Val)

	_, err = datasets.ReadSVMLight(strings.NewReader("1 qid:4 1:1\n"), "rank.svm", datasets.SVMLightOptions{})
	fmt.Println(err)
	// Output:
	// 3 examples, 3 features, labels [1 -1 2]
	// first example (0-based): [0 2] [0.5 2]
	// svmlight: rank.svm:1: "qid:4": qid (ranking data) is not supported; a multiclass file holds a label and index:value pairs
}

func ExampleReadCSV() {
	data := `sepal_length,sepal_width,species
5.1,3.5,setosa
7.0,3.2,versicolor
`
	ex, err := datasets.ReadCSV(strings.NewReader(data), "iris.csv", datasets.CSVOptions{Label: "species"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ex.FeatureNames, ex.Labels, ex.Lines)
	// Output: [sepal_length sepal_width] [setosa versicolor] [2 3]
}

// Labels become classes in sorted order; the scaling is fitted on the
// training set and applied unchanged to the test set; the bias is the last
// feature.
func ExampleNewMulticlassData() {
	train, err := datasets.ReadCSV(strings.NewReader("x,y\n0,b\n2,a\n4,b\n"), "train.csv", datasets.CSVOptions{})
	if err != nil {
		log.Fatal(err)
	}
	test, err := datasets.ReadCSV(strings.NewReader("x,y\n3,c\n1,a\n"), "test.csv", datasets.CSVOptions{})
	if err != nil {
		log.Fatal(err)
	}
	d, err := datasets.NewMulticlassData(train, test, datasets.Preprocess{Scaling: datasets.ScaleMinMax, Bias: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("classes:", d.Classes, "class of b:", d.Class("b"))
	in := d.Test.Input(0)
	fmt.Println("test input:", in.Idx, in.Val, "class", d.Test.Truth(0))
	// The classes are the training set's: label c of the test set is none
	// of them (oracles.NoClass), an error whatever the model predicts.
	fmt.Println("test labels without a class:", d.Unseen.Labels, "in", d.Unseen.Items, d.Unseen.Item)
	fmt.Println("dimension F*K:", d.Train.Dim())
	// Output:
	// classes: [a b] class of b: 1
	// test input: [0 1] [0.75 1] class [-1]
	// test labels without a class: [c] in 1 example
	// dimension F*K: 4
}

func ExampleTestFileCandidates() {
	for _, train := range []string{"iris_train.csv", "letter.scale", "dna.scale.tr"} {
		fmt.Println(datasets.TestFileCandidates(train)[:2])
	}
	// Output:
	// [iris_test.csv iris_test.csv.gz]
	// [letter.scale.t letter.scale.t.gz]
	// [dna.scale.t dna.scale.t.gz]
}

func ExampleReadARFF() {
	const text = `@relation toy
@attribute f1 numeric
@attribute f2 numeric
@attribute label1 {0,1}
@attribute label2 {0,1}
@data
0.5,-1,1,0
{1 2, 3 1}
`
	a, err := datasets.ReadARFF(strings.NewReader(text), "toy.arff")
	if err != nil {
		panic(err)
	}
	d, err := a.MultiLabel([]string{"label1", "label2"})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Features, d.Labels)
	for m := range d.X {
		fmt.Println(d.X[m].Dense(2), d.Y[m])
	}
	// Output:
	// [f1 f2] [label1 label2]
	// [0.5 -1] [1 0]
	// [0 2] [0 1]
}

// Download a dataset from a mirror, giving up on a server that does not
// answer or stops sending for 30 seconds (Download's default client waits a
// minute; http.DefaultClient would wait for ever).
func ExampleNewHTTPClient() {
	ds := datasets.USPS.WithBaseURL("https://mirror.example.org/usps")
	err := datasets.Download(context.Background(), ds, "", datasets.NewHTTPClient(30*time.Second))
	if errors.Is(err, datasets.ErrUnreachable) {
		fmt.Println("offline:", err)
	}
}
