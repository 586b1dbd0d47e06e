// Command emotions writes the emotions-like MULAN data set of package
// internal/gendata (72 unscaled audio features, 6 labels; see
// gendata.Emotions) into a folder, and prints the path of its training
// file: the "own data" that notebook 11_your_data trains on when the
// researcher has not given a file of their own.
//
// Usage:
//
//	emotions [-name emotions] [-seed 1] DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fwstruct/fwstruct/internal/gendata"
)

func main() {
	name := flag.String("name", "emotions", "base `NAME` of the files: NAME-train.arff, NAME-test.arff, NAME.xml")
	seed := flag.Uint64("seed", 1, "seed of the data")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: emotions [-name NAME] [-seed N] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	dir := flag.Arg(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "emotions:", err)
		os.Exit(1)
	}
	path, err := gendata.Emotions(dir, *name, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "emotions:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}
