package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
)

func TestMissingNeeds(t *testing.T) {
	have := map[string]bool{"ocr": true, "horses": false, "usps": false}
	found := func(name string) (bool, error) {
		ok, known := have[name]
		if !known {
			_, err := datasets.ByName(name) // the real tool's error for an unknown name
			return false, err
		}
		return ok, nil
	}
	for _, tc := range []struct {
		name, nb string
		want     []string
		err      string
	}{
		{"none", `{"metadata": {"kernelspec": {}}, "cells": []}`, nil, ""},
		{"all found", `{"metadata": {"fwstruct": {"needs": ["ocr"]}}}`, nil, ""},
		{"two missing", `{"metadata": {"fwstruct": {"needs": ["horses", "ocr", "usps"]}}}`, []string{"horses", "usps"}, ""},
		{"unknown", `{"metadata": {"fwstruct": {"needs": ["imagenet"]}}}`, nil, "imagenet"},
		{"not json", `{"metadata": `, nil, "not a notebook"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := missingNeeds(strings.NewReader(tc.nb), "x.ipynb", found)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestLocate: with $FWSTRUCT_DATA naming a folder holding only usps/ (and
// an empty cache), usps is found and horses and yeast are not.
func TestLocate(t *testing.T) {
	root := t.TempDir()
	for _, f := range datasets.USPS.Files {
		p := filepath.Join(root, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(datasets.EnvVar, root)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	for name, want := range map[string]bool{"usps": true, "horses": false, "yeast": false} {
		got, err := locate(name)
		if err != nil || got != want {
			t.Errorf("locate(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := locate("imagenet"); err == nil {
		t.Error("an unknown dataset was accepted")
	}
}
