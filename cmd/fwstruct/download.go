package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
)

const downloadUsage = `Usage: fwstruct download [--dir DIR] NAME...

Fetches public datasets (ocr, usps), verifying their SHA-256 digests.`

// downloadLine is the command line of fwstruct download.
type downloadLine struct {
	dir, base string
	timeout   time.Duration
}

// declareDownload declares the flags of download.
func declareDownload(f *flagSet) *downloadLine {
	d := &downloadLine{timeout: datasets.DefaultTimeout}
	f.section("Download", "")
	f.String(&d.dir, "dir", "data root to download into (default: the user cache)")
	f.String(&d.base, "base-url", "fetch the files from this mirror instead of their public addresses")
	f.Duration(&d.timeout, "timeout", "give up when the server does not answer, or sends nothing, for this long (> 0)")
	f.check(func() error {
		if d.timeout <= 0 {
			return fmt.Errorf("--timeout must be > 0, got %v", d.timeout)
		}
		return nil
	})
	return d
}

func runDownload(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFlagSet("download")
	d := declareDownload(f)
	f.help = f.simpleHelp(stderr, downloadUsage)
	names, err := f.parseFiles(args)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usageErrorf("download", "download needs the name of a dataset: ocr or usps")
	}
	client := datasets.NewHTTPClient(d.timeout)
	for _, name := range names {
		ds, err := datasets.ByName(name)
		if err != nil {
			return err
		}
		if d.base != "" {
			ds = ds.WithBaseURL(d.base)
		}
		if err := datasets.Download(ctx, ds, d.dir, client); err != nil {
			if errors.Is(err, datasets.ErrUnreachable) && d.base == "" {
				return fmt.Errorf("%w (or fetch from a mirror with --base-url URL)", err)
			}
			return err
		}
		root := d.dir
		if root == "" {
			root, _ = datasets.CacheDir()
		}
		fmt.Fprintf(stdout, "%s: ready in %s\n", name, root)
	}
	return nil
}
