package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/fwstruct/fwstruct/datasets"
)

func runDownload(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("download", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: fwstruct download [--dir DIR] NAME...\n\nFetches public datasets (ocr, usps), verifying their SHA-256 digests.\n\nFlags:")
		fs.PrintDefaults()
	}
	dir := fs.String("dir", "", "data root to download into (default: the user cache)")
	base := fs.String("base-url", "", "fetch the files from this mirror instead of their public addresses")
	timeout := fs.Duration("timeout", datasets.DefaultTimeout, "give up when the server does not answer, or sends nothing, for this long (> 0)")
	if err := parseCommandLine(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf(fs, "download needs the name of a dataset: ocr or usps")
	}
	if *timeout <= 0 {
		return fmt.Errorf("--timeout must be > 0, got %v", *timeout)
	}
	client := datasets.NewHTTPClient(*timeout)
	for _, name := range fs.Args() {
		ds, err := datasets.ByName(name)
		if err != nil {
			return err
		}
		if *base != "" {
			ds = ds.WithBaseURL(*base)
		}
		if err := datasets.Download(ctx, ds, *dir, client); err != nil {
			if errors.Is(err, datasets.ErrUnreachable) && *base == "" {
				return fmt.Errorf("%w (or fetch from a mirror with --base-url URL)", err)
			}
			return err
		}
		root := *dir
		if root == "" {
			root, _ = datasets.CacheDir()
		}
		fmt.Fprintf(stdout, "%s: ready in %s\n", name, root)
	}
	return nil
}
