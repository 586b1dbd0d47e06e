package ssvmnb

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
)

// TestSaveModelLoadModel: a trainer on data from Load saves a model that
// LoadModel reads back with its test set and the run's weights; data built
// by hand cannot say how to load it again, and is refused.
func TestSaveModelLoadModel(t *testing.T) {
	dir := t.TempDir()
	rows := "1,2,a\n2,1,b\n1.5,2.5,a\n2.5,0.5,b\n0.5,2,a\n3,1,b\n"
	train := filepath.Join(dir, "s_train.csv")
	os.WriteFile(train, []byte(rows), 0o644)
	os.WriteFile(filepath.Join(dir, "s_test.csv"), []byte(strings.Join(strings.SplitAfter(rows, "\n")[:4], "")), 0o644)
	data, err := Load(train)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := New("save", data, solver.BCFW{Lambda: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(5); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "model.json")
	if err := tr.SaveModel(path); err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Test == nil || m.Test.Len() != 4 || !slices.Equal(m.Weights, tr.Weights()) || !slices.Equal(m.Schema.Labels, []string{"a", "b"}) {
		t.Fatalf("loaded: test %v, weights %v (the run's %v), labels %v", m.Test, m.Weights, tr.Weights(), m.Schema.Labels)
	}
	byHand, err := New("hand", NewData("hand", data.Train, data.Test), solver.BCFW{Lambda: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if err := byHand.SaveModel(filepath.Join(dir, "hand.json")); err == nil || !strings.Contains(err.Error(), "built by hand (NewData)") {
		t.Errorf("data built by hand: %v", err)
	}
}
