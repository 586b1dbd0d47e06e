package datasets

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// TestTestFileBeyondTrainingFeatures: features of an svmlight test file
// beyond the training file's (issue 35, item 7) are dropped with a count;
// d, the bias position and every prediction are those of the same test
// file without them.
func TestTestFileBeyondTrainingFeatures(t *testing.T) {
	dir := t.TempDir()
	train := writeFile(t, dir, "a.svm", []byte("1 1:1 2:0.5\n2 2:1 3:1\n1 1:2\n"))
	plain := writeFile(t, dir, "plain.svm", []byte("1 1:1\n2 3:2 2:-1\n"))
	// Features 4 and 9 (1-based) are none of the training file's 3; the
	// 0 of the 0-based-looking line is none either (the training file,
	// without index 0, is 1-based).
	beyond := writeFile(t, dir, "beyond.svm", []byte("1 1:1 9:5\n2 0:7 2:-1 3:2 4:1\n"))
	for _, bias := range []bool{true, false} {
		a, err := LoadData(train, Options{TestPath: plain, NoBias: !bias})
		if err != nil {
			t.Fatal(err)
		}
		b, err := LoadData(train, Options{TestPath: beyond, NoBias: !bias})
		if err != nil {
			t.Fatal(err)
		}
		const F, K = 3, 2
		nf := F
		if bias {
			nf++
		}
		if a.Train.Dim() != nf*K || b.Train.Dim() != a.Train.Dim() || b.Test.Dim() != a.Train.Dim() {
			t.Fatalf("bias %v: d = %d, %d with the other test file, test d = %d; want %d", bias, a.Train.Dim(), b.Train.Dim(), b.Test.Dim(), nf*K)
		}
		if want := (Unseen{Features: 3, Item: "example"}); !reflect.DeepEqual(b.Unseen, want) {
			t.Errorf("bias %v: unseen %+v, want %+v", bias, b.Unseen, want)
		}
		if a.Unseen.Features != 0 {
			t.Errorf("bias %v: %d features dropped from a test file within the training features", bias, a.Unseen.Features)
		}
		ta, tb := a.Test.(*oracles.Multiclass), b.Test.(*oracles.Multiclass)
		for i := 0; i < ta.Len(); i++ {
			xa, xb := ta.Input(i), tb.Input(i)
			if !equalVecs(xa, xb) {
				t.Fatalf("bias %v: test input %d is %v, want %v", bias, i, xb, xa)
			}
			if bias && xb.Idx[len(xb.Idx)-1] != F {
				t.Fatalf("bias %v: the bias of test input %d is at %d, want %d", bias, i, xb.Idx[len(xb.Idx)-1], F)
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for trial := 0; trial < 10; trial++ {
			w := oraclestest.Weights(rng, a.Train.Dim(), 1)
			for i := 0; i < ta.Len(); i++ {
				if pa, pb := ta.Predict(i, w, nil)[0], tb.Predict(i, w, nil)[0]; pa != pb {
					t.Fatalf("bias %v: example %d predicted %d, %d without the features beyond", bias, i, pb, pa)
				}
			}
		}
	}
}

// TestUnseenLabelsEveryFormat: a label or tag that only the test file has
// is no class of the model, in every format read from a training file and
// a test file; its examples (tokens) are counted in Data.Unseen and are
// errors of every model.
func TestUnseenLabelsEveryFormat(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	digit := func(label string, seed int) string { return uspsLine(label, uspsValues(seed)) + "\n" }
	const fromDictionary = -1 // Unseen.Features: the test Chunking's Dropped
	cases := []struct {
		name        string
		train, test string // file names, with their contents below
		trainData   string
		testData    string
		want        Unseen
		minLoss     float64 // the test loss of every w is at least this
	}{
		{"svmlight", "s_train.svm", "s_test.svm", "1 1:1\n2 2:1\n", "3 1:1\n1 1:1\n5 2:1\n3 2:2\n", Unseen{Labels: []string{"3", "5"}, Items: 3, Item: "example"}, 3.0 / 4},
		{"csv", "c_train.csv", "c_test.csv", "a,b,y\n1,2,x\n3,4,z\n", "a,b,y\n1,2,q\n3,4,x\n", Unseen{Labels: []string{"q"}, Items: 1, Item: "example"}, 1.0 / 2},
		{"usps", "d_train.txt", "d_test.txt", digit("1", 0) + digit("2", 1), digit("7", 2) + digit("1", 0), Unseen{Labels: []string{"7"}, Items: 1, Item: "example"}, 1.0 / 2},
		// Two sentences: 1 of 2 tokens and 2 of 2 unseen, mean loss 3/4.
		{"conll", "k_train.txt", "k_test.txt", "the DT B-NP\ndog NN I-NP\nran VB B-VP\n", "( ( B-LST\ndog NN I-NP\n\n1 CD I-LST\n) ) E-LST\n",
			Unseen{Features: fromDictionary, Labels: []string{"B-LST", "E-LST", "I-LST"}, Items: 3, Item: "token"}, 3.0 / 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			train := writeFile(t, dir, tc.train, []byte(tc.trainData))
			test := writeFile(t, dir, tc.test, []byte(tc.testData))
			d, err := LoadData(train, Options{TestPath: test})
			if err != nil {
				t.Fatal(err)
			}
			if d.Name != tc.name {
				t.Fatalf("read as %s", d.Name)
			}
			want := tc.want
			if want.Features == fromDictionary { // the test attributes the training dictionary lacks
				want.Features = d.Test.(*Chunking).Dropped
				if want.Features == 0 {
					t.Error("no test attribute dropped, though the test words are unseen")
				}
			}
			if !reflect.DeepEqual(d.Unseen, want) {
				t.Errorf("unseen %+v, want %+v", d.Unseen, want)
			}
			for _, l := range d.Unseen.Labels {
				if slices.Contains(d.Labels, l) {
					t.Errorf("unseen label %s is a class %v", l, d.Labels)
				}
			}
			// The training file alone fixes the problem: d is the one with
			// the training file as its own test file.
			self, err := LoadData(train, Options{TestPath: train})
			if err != nil {
				t.Fatal(err)
			}
			if self.Train.Dim() != d.Train.Dim() || d.Test.Dim() != d.Train.Dim() || !slices.Equal(self.Labels, d.Labels) {
				t.Errorf("d = %d (test d %d), labels %v; with the training file as test file d = %d, labels %v", d.Train.Dim(), d.Test.Dim(), d.Labels, self.Train.Dim(), self.Labels)
			}
			if self.Unseen.Labels != nil || self.Unseen.Items != 0 || self.Unseen.Item != want.Item {
				t.Errorf("the training file as its own test file: unseen %+v", self.Unseen)
			}
			items := d.Test.Len() // examples, or tokens of column format
			if c, ok := d.Test.(*Chunking); ok {
				items = 0
				for i := range c.Len() {
					items += c.SeqLen(i)
				}
			}
			rng := rand.New(rand.NewPCG(3, 4))
			for trial := 0; trial < 10; trial++ {
				w := oraclestest.Weights(rng, d.Test.Dim(), 1)
				if l := oracles.MeanLoss(d.Test, w); l < tc.minLoss-1e-12 {
					t.Fatalf("test loss %v, below the %v of the unseen items", l, tc.minLoss)
				}
				if ev, ok := d.Test.(oracles.Evaluator); ok {
					pred := make([][]int32, d.Test.Len())
					for i := range pred {
						pred[i] = d.Test.Predict(i, w, nil)
					}
					for _, m := range ev.Metrics(pred) {
						if m.Name == "token accuracy %" && m.Value > 100*(1-float64(want.Items)/float64(items))+1e-9 {
							t.Fatalf("token accuracy %v%% counts unseen tokens as right", m.Value)
						}
					}
				}
			}
		})
	}
}

// TestMULANTestDeclarations: a MULAN test file must declare its attributes
// as the training file does; a nominal feature coded otherwise would
// change the feature map.
func TestMULANTestDeclarations(t *testing.T) {
	dir := t.TempDir()
	train := writeFile(t, dir, "toy-train.arff", []byte(mulanARFF(6, false, 0)))
	writeFile(t, dir, "toy.xml", []byte(sampleXML))
	good := writeFile(t, dir, "good.arff", []byte(mulanARFF(3, true, 1)))
	reordered := writeFile(t, dir, "reordered.arff", []byte(strings.Replace(mulanARFF(3, false, 1), "@attribute f2 {0,1}", "@attribute f2 {1,0}", 1)))
	numeric := writeFile(t, dir, "numeric.arff", []byte(strings.Replace(mulanARFF(3, false, 1), "@attribute f2 {0,1}", "@attribute f2 numeric", 1)))
	d, err := LoadData(train, Options{TestPath: good})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Unseen, Unseen{}) {
		t.Errorf("unseen %+v, want none (the labels are the XML file's)", d.Unseen)
	}
	for _, tc := range []struct{ test, want string }{
		{reordered, `mulan: attribute "f2" is {0,1} in ` + train + ` but {1,0} in ` + reordered},
		{numeric, `mulan: attribute "f2" is {0,1} in ` + train + ` but numeric in ` + numeric},
	} {
		if _, err := LoadData(train, Options{TestPath: tc.test}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("test file %s: error %v, want %q", tc.test, err, tc.want)
		}
	}
}
