package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestChunkF1 scores a prediction that splits a chunk in two: 2 of the 3
// gold chunks found among 4 guessed, as conlleval counts them.
func TestChunkF1(t *testing.T) {
	dir := t.TempDir()
	gold := filepath.Join(dir, "gold.txt")
	pred := filepath.Join(dir, "pred.txt")
	write := func(name, text string) {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(gold, "B-NP\tw[0]=The\nI-NP\tw[0]=cat\nB-VP\tw[0]=sat\n\nB-NP\tw[0]=It\n\n")
	write(pred, "B-NP\nB-NP\nB-VP\n\nB-NP\n\n")
	c, err := chunkF1(gold, pred)
	if err != nil {
		t.Fatal(err)
	}
	if c.Gold != 3 || c.Guessed != 4 || c.Correct != 2 || c.Tokens != 4 || c.CorrectTags != 3 {
		t.Fatalf("counts %+v", c)
	}
	write(pred, "B-NP\n\n")
	if _, err := chunkF1(gold, pred); err == nil {
		t.Fatal("accepted a prediction with fewer sentences")
	}
}

// TestConllevalF1 scores the same split chunk in conlleval's format.
func TestConllevalF1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pred.txt")
	if err := os.WriteFile(path, []byte("The DT B-NP B-NP\ncat NN I-NP B-NP\nsat VBD B-VP B-VP\n\nIt PRP B-NP B-NP\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := conllevalF1(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Gold != 3 || c.Guessed != 4 || c.Correct != 2 || c.Tokens != 4 || c.CorrectTags != 3 {
		t.Fatalf("counts %+v", c)
	}
}
