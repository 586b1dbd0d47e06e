package datasets

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

const sampleXML = `<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="L2"></label>
<label name="group">
  <label name="L1"/>
</label>
<label name="L3"/>
</labels>`

// mulanARFF writes a MULAN ARFF with features f0..f2 and labels L1, L2
// (declared {1,0}), L3 spread among them, n rows, dense or sparse.
func mulanARFF(n int, sparse bool, seed int) string {
	var sb strings.Builder
	sb.WriteString("@relation 'toy: -C 3'\n@attribute f0 numeric\n@attribute L1 {0,1}\n@attribute f1 numeric\n@attribute L2 {1,0}\n@attribute f2 {0,1}\n@attribute L3 {0,1}\n@attribute group {0,1}\n@data\n")
	for m := 0; m < n; m++ {
		f0 := float64((m*7+seed)%5) - 2
		f1 := float64((m*3+seed)%4) / 4
		f2 := (m + seed) % 2
		l1, l2, l3, grp := (m+seed)%2, (m/2+seed)%2, (m/3)%2, m%2
		if !sparse {
			fmt.Fprintf(&sb, "%g,%d,%g,%d,%d,%d,%d\n", f0, l1, f1, l2, f2, l3, grp)
			continue
		}
		var ent []string
		add := func(k int, v string, zero bool) {
			if !zero {
				ent = append(ent, fmt.Sprintf("%d %s", k, v))
			}
		}
		add(0, fmt.Sprint(f0), f0 == 0)
		add(1, "1", l1 == 0)
		add(2, fmt.Sprint(f1), f1 == 0)
		add(3, "0", l2 == 1) // {1,0}: "1" is coded 0, omitted
		add(4, "1", f2 == 0)
		add(5, "1", l3 == 0)
		add(6, "1", grp == 0)
		sb.WriteString("{" + strings.Join(ent, ",") + "}\n")
	}
	return sb.String()
}

func TestReadMULANLabels(t *testing.T) {
	got, err := ReadMULANLabels(strings.NewReader(sampleXML), "toy.xml")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "L2,group,L1,L3" {
		t.Fatalf("labels %v", got)
	}
	for _, bad := range []struct{ text, want string }{
		{"<labels></labels>", "no <label>"},
		{"<labels>\n<label/></labels>", "toy.xml:2: <label> without a name"},
		{`<labels><label name="a"/><label name="a"/></labels>`, "twice"},
		{`<labels><label name="a">`, "toy.xml:1:"},
	} {
		if _, err := ReadMULANLabels(strings.NewReader(bad.text), "toy.xml"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.text, err, bad.want)
		}
	}
}

func TestMULANDenseAndSparseAgree(t *testing.T) {
	labels := []string{"L2", "L1", "L3", "group"}
	var datas []*MultiLabelData
	for _, sparse := range []bool{false, true} {
		a, err := ReadARFF(strings.NewReader(mulanARFF(9, sparse, 1)), "toy.arff")
		if err != nil {
			t.Fatal(err)
		}
		d, err := a.MultiLabel(labels)
		if err != nil {
			t.Fatal(err)
		}
		datas = append(datas, d)
	}
	dense, sparse := datas[0], datas[1]
	if strings.Join(dense.Features, ",") != "f0,f1,f2" || strings.Join(dense.Labels, ",") != "L1,L2,L3,group" {
		t.Fatalf("features %v, labels %v (file order)", dense.Features, dense.Labels)
	}
	for m := range dense.X {
		// Labels read back as written.
		want := []int32{int32((m + 1) % 2), int32((m/2 + 1) % 2), int32((m / 3) % 2), int32(m % 2)}
		for k := range want {
			if dense.Y[m][k] != want[k] || sparse.Y[m][k] != want[k] {
				t.Fatalf("row %d: labels %v (dense), %v (sparse), want %v", m, dense.Y[m], sparse.Y[m], want)
			}
		}
		a, b := dense.X[m].Dense(3), sparse.X[m].Dense(3)
		for f := range a {
			if a[f] != b[f] {
				t.Fatalf("row %d: features %v (dense), %v (sparse)", m, a, b)
			}
		}
	}
	a, _ := ReadARFF(strings.NewReader(mulanARFF(2, false, 0)), "toy.arff")
	if _, err := a.MultiLabel([]string{"L1", "nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing label: %v", err)
	}
	if _, err := a.MultiLabel([]string{"f0"}); err == nil || !strings.Contains(err.Error(), "not nominal") {
		t.Errorf("numeric label: %v", err)
	}
}

// writeMULAN writes name-train.arff, name-test.arff and name.xml into dir.
func writeMULAN(t *testing.T, dir, name string) string {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, name+"-train.arff"), []byte(mulanARFF(12, false, 0)), 0o644))
	must(os.WriteFile(filepath.Join(dir, name+"-test.arff"), []byte(mulanARFF(7, true, 2)), 0o644))
	must(os.WriteFile(filepath.Join(dir, name+".xml"), []byte(sampleXML), 0o644))
	return filepath.Join(dir, name+"-train.arff")
}

func TestLoadMULANByPath(t *testing.T) {
	dir := t.TempDir()
	train := writeMULAN(t, dir, "toy")
	for _, path := range []string{train, dir} {
		for _, bias := range []bool{true, false} {
			tr, te, err := Load(path, Options{NoBias: !bias})
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			l := factorgraph.MultiLabel{Labels: 4, Features: 3, Bias: bias}
			if tr.Len() != 12 || te.Len() != 7 || tr.Dim() != l.Dim() || te.Dim() != l.Dim() {
				t.Fatalf("%s: %d/%d examples, d = %d; want 12/7, %d", path, tr.Len(), te.Len(), tr.Dim(), l.Dim())
			}
			oraclestest.Conformance(t, tr, oraclestest.CheckOptions{Seed: 1})
			if _, ok := te.(oracles.Evaluator); !ok {
				t.Fatal("test problem is not an oracles.Evaluator")
			}
		}
	}
	if kind, err := Recognize(dir); err != nil || kind != "mulan" {
		t.Errorf("Recognize(folder) = %q, %v", kind, err)
	}
	// The test file names the pair too.
	if f, err := FindMULAN(filepath.Join(dir, "toy-test.arff")); err != nil || f.Train != train || f.Test != filepath.Join(dir, "toy-test.arff") || f.XML != filepath.Join(dir, "toy.xml") {
		t.Errorf("FindMULAN on the test file: %+v, %v", f, err)
	}
	// Errors: missing companions, bad names, mismatched attributes.
	os.Remove(filepath.Join(dir, "toy.xml"))
	if _, _, err := Load(train, Options{}); err == nil || !strings.Contains(err.Error(), "no XML label file for "+train) {
		t.Errorf("missing xml: %v", err)
	}
	other := t.TempDir()
	train = writeMULAN(t, other, "x")
	bad := strings.Replace(mulanARFF(3, false, 0), "@attribute f1 numeric", "@attribute g1 numeric", 1)
	if err := os.WriteFile(filepath.Join(other, "x-test.arff"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadMULAN(train, Options{}); err == nil || !strings.Contains(err.Error(), "g1") {
		t.Errorf("mismatched attributes: %v", err)
	}
	if err := os.WriteFile(filepath.Join(other, "x-test.arff"), []byte("@relation r\n@attribute a numeric\n@data\nz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadMULAN(train, Options{}); err == nil || !strings.Contains(err.Error(), "x-test.arff:4:") {
		t.Errorf("bad test file: %v", err)
	}
	var pe *os.PathError
	if _, err := FindMULAN(filepath.Join(other, "none-train.arff")); !errors.As(err, &pe) {
		t.Errorf("missing file: %v", err)
	}
}

// TestMULANModel checks the multi-label model built from MULAN data: psi
// of flipping one label is the input in that label's block (and the pair
// weights with the other relevant labels).
func TestMULANModel(t *testing.T) {
	dir := t.TempDir()
	d, err := LoadMULAN(writeMULAN(t, dir, "toy"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := d.Train
	m := tr.Model()
	l := factorgraph.MultiLabel{Labels: 4, Features: 3, Bias: true}
	var psi oracles.SparseVec
	for i := 0; i < m.Len(); i++ {
		truth := m.Truth(i)
		y := append([]int32(nil), truth...)
		y[2] = 1 - y[2]
		tr.Psi(i, y, &psi)
		d := psi.Dense(l.Dim())
		sign := float64(truth[2] - y[2]) // +1 when the truth has label 2
		in := m.Inputs(i)[0]
		x := in.Dense(3)
		for f := 0; f < 3; f++ {
			if d[l.UnaryIndex(2, f)] != sign*x[f] {
				t.Fatalf("example %d: psi at feature %d of label 2 is %v, want %v", i, f, d[l.UnaryIndex(2, f)], sign*x[f])
			}
		}
		if d[l.BiasIndex(2)] != sign {
			t.Fatalf("example %d: psi at the bias of label 2 is %v", i, d[l.BiasIndex(2)])
		}
		for j := 0; j < 4; j++ {
			if j != 2 && d[l.PairIndex(2, j)] != sign*float64(truth[j]) {
				t.Fatalf("example %d: psi at pair (2,%d) is %v", i, j, d[l.PairIndex(2, j)])
			}
		}
		if got := tr.Loss(i, y); math.Abs(got-0.25) > 1e-15 {
			t.Fatalf("loss %v, want 1/4", got)
		}
	}
}
