package gendata_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
)

// ExampleEmotions writes the emotions-like MULAN data, loads it as a user
// would, and measures how large its raw features are for lambda = 0.01.
func ExampleEmotions() {
	dir, err := os.MkdirTemp("", "emotions")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	train, err := gendata.Emotions(dir, "emotions", 1)
	if err != nil {
		panic(err)
	}
	for _, scaling := range []datasets.Scaling{datasets.ScaleNone, datasets.ScaleStandardize} {
		d, err := datasets.LoadData(train, datasets.Options{Scaling: scaling})
		if err != nil {
			panic(err)
		}
		c, err := solver.MeasureConditioning(d.Train, 0.01)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s, scaling %v: %d/%d songs, %d labels, ill-conditioned: %v\n",
			filepath.Base(d.TrainPath), scaling, d.Train.Len(), d.Test.Len(), len(d.Labels), c.Ill())
	}
	// Output:
	// emotions-train.arff, scaling none: 391/202 songs, 6 labels, ill-conditioned: true
	// emotions-train.arff, scaling standardize: 391/202 songs, 6 labels, ill-conditioned: false
}

func ExampleGapToy() {
	n, K := 10, 4
	p, err := gendata.GapToy(n, K)
	if err != nil {
		panic(err)
	}
	var psi oracles.SparseVec
	p.Psi(0, []int32{2}, &psi) // the hard object, wrong label 2
	fmt.Printf("n=%d d=%d psi_0(2)=%.4f at %d, loss %v\n", p.Len(), p.Dim(), psi.Val[0], psi.Idx[0], p.Loss(0, []int32{2}))
	fmt.Printf("w* = %.4f (train with lambda = 1/n = %v)\n", gendata.GapToyOptimum(K), 1/float64(n))
	// Output:
	// n=10 d=5 psi_0(2)=0.7071 at 1, loss 1
	// w* = [0.1768 0.1768 0.1768 0.1768 1.0000] (train with lambda = 1/n = 0.1)
}
