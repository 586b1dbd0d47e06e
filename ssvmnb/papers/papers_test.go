package papers

import (
	"bytes"
	"os"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/ssvmnb"
)

// TestMain keeps every session file of the tests out of the source tree:
// $FWSTRUCT_SESSION is a temporary folder, removed at the end.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "papers-test-session")
	if err != nil {
		panic(err)
	}
	os.Setenv("FWSTRUCT_SESSION", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	dataOnce    sync.Once
	train, test *oracles.Chain
)

// synthetic returns small synthetic OCR train and test problems.
func synthetic(t testing.TB) (*oracles.Chain, *oracles.Chain) {
	t.Helper()
	dataOnce.Do(func() {
		var err error
		train, test, err = datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 60, TestWords: 40, Seed: 5})
		if err != nil {
			panic(err)
		}
	})
	return train, test
}

// syntheticData is synthetic loaded as notebook data.
func syntheticData(t *testing.T) *ssvmnb.Data {
	t.Helper()
	d, err := ssvmnb.Load("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 60, TestWords: 40, Seed: 5}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// isolated gives the test a session folder of its own and collects the
// notes Load and Fork write.
func isolated(t *testing.T) *bytes.Buffer {
	t.Helper()
	oldDir, oldNotes := ssvmnb.SessionDir, ssvmnb.Notes
	ssvmnb.SessionDir = t.TempDir()
	var notes bytes.Buffer
	ssvmnb.Notes = &notes
	t.Cleanup(func() { ssvmnb.SessionDir, ssvmnb.Notes = oldDir, oldNotes })
	return &notes
}
