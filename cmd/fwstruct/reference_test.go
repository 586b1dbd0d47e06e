package main

import (
	"os"
	"strings"
	"testing"
)

// TestFlagReferenceCurrent: the flag reference committed in docs/cli.md is
// the one the flag definitions generate (go generate ./cmd/fwstruct).
func TestFlagReferenceCurrent(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := replaceReference(string(doc), flagReference())
	if err != nil {
		t.Fatal(err)
	}
	if fresh != string(doc) {
		t.Fatal("docs/cli.md's flag reference is stale: run go generate ./cmd/fwstruct")
	}
	// Every flag of every command and method is in it.
	for _, e := range methods {
		f := newFlagSet("train")
		declareTrain(f, e, nil)
		for _, s := range f.sections {
			for _, name := range s.names {
				if !strings.Contains(fresh, "`--"+name) {
					t.Errorf("--%s of train --method %s is not in the reference", name, e.name)
				}
			}
		}
	}
}

// TestReplaceReference replaces the text between the markers, and refuses
// a document without them.
func TestReplaceReference(t *testing.T) {
	doc := "head\n" + referenceBegin + "\nold\n" + referenceEnd + "\ntail\n"
	got, err := replaceReference(doc, "new\n")
	if want := "head\n" + referenceBegin + "\nnew\n" + referenceEnd + "\ntail\n"; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if _, err := replaceReference("no markers", "x"); err == nil {
		t.Error("a document without markers was accepted")
	}
}
