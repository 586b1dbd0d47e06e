package model_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/model"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Train on a CSV file, save the model, then — without the training file —
// load it and write its predictions for new rows that have no label
// column, in the file's own class names.
func Example() {
	dir, _ := os.MkdirTemp("", "model-example")
	defer os.RemoveAll(dir)
	write := func(name, rows string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(rows), 0o644)
		return p
	}
	train := write("fruit_train.csv", "weight,sweet,fruit\n150,0.9,apple\n160,0.8,apple\n120,0.2,lemon\n110,0.1,lemon\n155,0.7,apple\n115,0.3,lemon\n")
	write("fruit_test.csv", "weight,sweet,fruit\n158,0.85,apple\n112,0.15,lemon\n")

	spec := datasets.Spec{Name: train, Options: datasets.Options{Scaling: datasets.ScaleStandardize}}
	d, _ := spec.Load()
	s, _ := solver.BCFW{Lambda: 0.1}.New(d.Train, run.WithTest(d.Test))
	s.Run(context.Background(), run.Stop{Passes: 20})
	s.Current() // the model records the gap of the final iterate
	m, _ := model.New(s, d, spec, model.Options{})
	m.Save(filepath.Join(dir, "fruit.json"))
	os.Remove(train) // the model needs no training file

	loaded, err := model.Load(filepath.Join(dir, "fruit.json"))
	if err != nil {
		fmt.Println(err)
		return
	}
	set, _ := loaded.Open(write("new.csv", "weight,sweet\n162,0.95\n108,0.05\n151,0.75\n"))
	pred, _ := loaded.Predict(set, false)
	fmt.Println("classes:", loaded.Schema.Labels, "gold labels:", set.Gold)
	set.WritePredictions(os.Stdout, pred)
	// Output:
	// classes: [apple lemon] gold labels: false
	// apple
	// lemon
	// apple
}
