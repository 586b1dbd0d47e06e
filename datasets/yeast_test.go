package datasets

import (
	"testing"

	"github.com/fwstruct/fwstruct/internal/realdata"
)

// TestRealYeast checks the counts of the MULAN Yeast files: 1,500 training
// and 917 test genes, 103 features and 14 labels (in the ARFF's order, not
// the XML's), every gene with at least one label, and the dimension
// d = 14*103 + 14*13/2 = 1,533 of the model without bias (the paper's
// count; 1,547 with the per-label bias).
func TestRealYeast(t *testing.T) {
	path := realdata.File(t, "yeast/yeast-train.arff")
	f, err := FindMULAN(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, te, err := ReadMULAN(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.X) != 1500 || len(te.X) != 917 || len(tr.Features) != 103 || len(tr.Labels) != 14 {
		t.Fatalf("%d/%d examples, %d features, %d labels; want 1500/917, 103, 14", len(tr.X), len(te.X), len(tr.Features), len(tr.Labels))
	}
	if tr.Labels[3] != "Class4" || tr.Labels[5] != "Class6" {
		t.Errorf("labels %v, want the ARFF order Class1..Class14", tr.Labels)
	}
	for _, d := range []*MultiLabelData{tr, te} {
		for m, y := range d.Y {
			n := 0
			for _, v := range y {
				n += int(v)
			}
			if n == 0 {
				t.Errorf("example %d has no label", m)
			}
		}
	}
	trm, _, err := MultiLabelModels(tr, te, false)
	if err != nil {
		t.Fatal(err)
	}
	if trm.Dim() != 1533 {
		t.Fatalf("d = %d, want 1533", trm.Dim())
	}
}

func BenchmarkReadYeast(b *testing.B) {
	path := realdata.File(b, "yeast/yeast-train.arff")
	f, err := FindMULAN(path)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := ReadMULAN(f); err != nil {
			b.Fatal(err)
		}
	}
}
