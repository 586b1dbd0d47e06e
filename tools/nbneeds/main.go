// Command nbneeds prints the real datasets a notebook needs that cannot be
// found on this machine, so that `make notebooks` skips it, saying why,
// instead of failing where the data is absent (as real-data tests skip).
//
// Usage:
//
//	nbneeds NOTEBOOK.ipynb
//
// A notebook lists what it needs in its metadata:
//
//	"metadata": {"fwstruct": {"needs": ["horses", "usps"]}, ...}
//
// with the names of datasets.Load: ocr, usps, conll, yeast (found by
// datasets.Locate), horses (datasets.LocateHorses) and hansards
// (datasets.LocateHansards), each looked for in
// $FWSTRUCT_DATA and in the user cache directory. Notebooks that fall back
// to other data (ssvmnb.Load("ocr") runs on synthetic data without OCR)
// need not list it. nbneeds prints the missing names on one line, separated
// by spaces (nothing when all are found) and exits 0; it exits 1 when the
// notebook cannot be read or names an unknown dataset, and 2 on bad usage.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: nbneeds NOTEBOOK.ipynb")
		os.Exit(2)
	}
	missing, err := run(os.Args[1], locate)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nbneeds:", err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(missing, " "))
}

// notebook is the part of a notebook nbneeds reads.
type notebook struct {
	Metadata struct {
		Fwstruct struct {
			Needs []string `json:"needs"`
		} `json:"fwstruct"`
	} `json:"metadata"`
}

// locate reports whether the named dataset is found on this machine; an
// unknown name is an error.
func locate(name string) (bool, error) {
	var err error
	switch name {
	case "horses":
		_, err = datasets.LocateHorses("")
	case "hansards":
		_, err = datasets.LocateHansards("")
	default:
		ds, derr := datasets.ByName(name)
		if derr != nil {
			return false, derr
		}
		_, err = datasets.Locate(ds, "")
	}
	return err == nil, nil
}

// run returns the datasets the notebook at path needs that found reports
// missing, in the notebook's order.
func run(path string, found func(string) (bool, error)) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return missingNeeds(f, path, found)
}

func missingNeeds(r io.Reader, name string, found func(string) (bool, error)) ([]string, error) {
	var nb notebook
	if err := json.NewDecoder(r).Decode(&nb); err != nil {
		return nil, fmt.Errorf("%s: not a notebook: %w", name, err)
	}
	var missing []string
	for _, need := range nb.Metadata.Fwstruct.Needs {
		ok, err := found(need)
		if err != nil {
			return nil, fmt.Errorf("%s: metadata fwstruct.needs: %w", name, err)
		}
		if !ok {
			missing = append(missing, need)
		}
	}
	return missing, nil
}
