package gendata

import (
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
)

func TestModels(t *testing.T) {
	m, err := MultiLabel(20, 5, 3, 1)
	if err != nil || m.Len() != 20 || m.Dim() != (factorgraph.MultiLabel{Labels: 5, Features: 3, Bias: true}).Dim() {
		t.Fatalf("multi-label: %v", err)
	}
	ones := 0
	for i := 0; i < m.Len(); i++ {
		for _, v := range m.Truth(i) {
			ones += int(v)
		}
	}
	if ones == 0 || ones == 100 {
		t.Fatalf("%d relevant labels of 100", ones)
	}
	g, err := Model(3, []int{2, 3, 2}, [][]int{{0, 1}, {1, 2}, {0, 1, 2}}, 2, 1)
	if err != nil || g.Len() != 3 || g.Graph(0).NumFactors() != 3 {
		t.Fatalf("model: %v", err)
	}
	for i := 0; i < g.Len(); i++ {
		if l := g.Loss(i, g.Truth(i)); l != 0 {
			t.Fatalf("loss %v at the truth", l)
		}
	}
	if g.NodeLoss(0, 3) == nil || g.NodeLoss(0, 4) != nil {
		t.Fatal("loss tables on the wrong factors")
	}
	for _, bad := range []func() error{
		func() error { _, err := MultiLabel(3, 0, 2, 1); return err },
		func() error { _, err := Model(2, []int{2}, [][]int{{0, 1}}, 1, 1); return err },
		func() error { _, err := Model(2, []int{0}, nil, 1, 1); return err },
	} {
		if bad() == nil {
			t.Fatal("bad input accepted")
		}
	}
}
