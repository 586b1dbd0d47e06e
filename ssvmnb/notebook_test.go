package ssvmnb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
)

// TestNotebooksHaveSessionsOfTheirOwn: two notebooks in one folder keep
// runs of the same name apart, see only their own runs, and ForgetAll of
// one leaves the other's runs and styles; $JPY_SESSION_NAME names the
// notebook, with or without Notebook, so that a copied notebook has a
// session of its own. An invalid name is an error at the first session
// call.
func TestNotebooksHaveSessionsOfTheirOwn(t *testing.T) {
	isolated(t)
	data := chainData(t)
	cfgA, cfgB := solver.BCFW{Lambda: 0.01, GapEvery: 2}, solver.BCFW{Lambda: 0.1, GapEvery: 2}

	// Notebook a runs "bcfw" 4 passes, notebook b its own "bcfw" (another
	// lambda) 2 passes.
	dirA := Notebook("a")
	Must(Must(Session("bcfw", data, cfgA)).Run(4))
	styleA := StyleOf("bcfw")
	Check(KeepRun(Must(Session("bcfw", data, cfgA)).VizRun()))
	dirB := Notebook("b")
	if dirA == dirB || filepath.Dir(dirA) != filepath.Dir(dirB) {
		t.Fatalf("session folders %q and %q", dirA, dirB)
	}
	b := Must(Session("bcfw", data, cfgB)) // not notebook a's run of another lambda
	if b.Passes() != 0 {
		t.Fatalf("notebook b starts at pass %v: it sees notebook a's run", b.Passes())
	}
	Must(b.Run(2))
	if _, err := KeptRun("bcfw"); err == nil {
		t.Fatal("notebook b sees notebook a's kept run")
	}

	// ForgetAll in notebook b forgets b's runs only.
	Check(ForgetAll())
	if _, err := Resume("bcfw"); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Fatalf("after ForgetAll in b: %v", err)
	}
	Notebook("a")
	if a := Must(Session("bcfw", data, cfgA)); a.Passes() < 3 {
		t.Fatalf("notebook a's run lost by b's ForgetAll: at pass %v", a.Passes())
	}
	if _, err := KeptRun("bcfw"); err != nil {
		t.Fatalf("notebook a's kept run: %v", err)
	}
	if StyleOf("bcfw") != styleA {
		t.Fatal("notebook a's styles changed")
	}

	Notebook("../x")
	if _, err := Session("bcfw", data, cfgA); err == nil || !strings.Contains(err.Error(), "Notebook") {
		t.Fatalf("an invalid notebook name: %v", err)
	}

	// Without Notebook, the Jupyter server's session name names it.
	resetNotebook()
	t.Setenv("JPY_SESSION_NAME", filepath.Join("some", "dir", "a.ipynb"))
	if a := Must(Session("bcfw", data, cfgA)); a.Passes() < 3 {
		t.Fatalf("JPY_SESSION_NAME a.ipynb: at pass %v, not notebook a's run", a.Passes())
	}

	// The session follows the notebook's file: a copy of notebook a,
	// which declares Notebook("a") as a does, has a session of its own,
	// and its ForgetAll leaves a's runs.
	Notebook("a")
	t.Setenv("JPY_SESSION_NAME", filepath.Join("some", "dir", "a-Copy1.ipynb"))
	if c := Must(Session("bcfw", data, cfgA)); c.Passes() != 0 {
		t.Fatalf("the copy of notebook a starts at pass %v: it shares a's session", c.Passes())
	}
	Check(ForgetAll())
	t.Setenv("JPY_SESSION_NAME", filepath.Join("some", "dir", "a.ipynb"))
	if a := Must(Session("bcfw", data, cfgA)); a.Passes() < 3 {
		t.Fatalf("notebook a's run lost by its copy's ForgetAll: at pass %v", a.Passes())
	}

	// Session files go through atomicfile: no temporary file is left.
	entries, err := os.ReadDir(dirA)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".gob") && !strings.HasSuffix(e.Name(), ".lock") && e.Name() != "styles.json" {
			t.Fatalf("stray file %s in the session folder", e.Name())
		}
	}
}
