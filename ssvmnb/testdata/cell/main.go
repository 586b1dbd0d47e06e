// Command cell is a notebook cell as GoNB runs one, a program of its own
// on a session: the tests of package ssvmnb build it and interrupt it
// (SIGINT, as the stop button does), run two of them on one session, and
// resume what they stored. The session folder is $FWSTRUCT_SESSION.
//
//	cell run NAME DATA PASSES   train NAME on DATA (a name Load knows) for a pass, then PASSES more
//	cell resume NAME            resume NAME and print where it stands
//	cell hold NAME DATA         open NAME on DATA and wait (until killed)
//	cell after NAME DATA        train NAME one pass, then wait (SIGINT must end it)
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/ssvmnb"
)

func main() {
	if err := cell(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cell:", err)
		os.Exit(1)
	}
}

func cell(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: cell run|resume|hold|after NAME ...")
	}
	mode, name := args[0], args[1]
	if mode == "resume" {
		t, err := ssvmnb.Resume(name)
		if err != nil {
			return err
		}
		fmt.Printf("pass %.6g, last point at pass %.6g, live %v\n", t.Passes(), t.Last().Pass, t.Live)
		return nil
	}
	if len(args) < 3 {
		return fmt.Errorf("%s needs NAME DATA", mode)
	}
	var opt datasets.Options
	if args[2] == "synthetic" {
		opt.Synthetic = datasets.SyntheticConfig{TrainWords: 400, TestWords: 100, Seed: 5}
	}
	data, err := ssvmnb.Load(args[2], opt)
	if err != nil {
		return err
	}
	t, err := ssvmnb.Session(name, data, auto.Method{Lambda: 0.01})
	if err != nil {
		return err
	}
	if mode == "run" { // the first cell trains a pass
		if _, err := t.Run(1); err != nil {
			return err
		}
	}
	fmt.Printf("ready at pass %.6g\n", t.Passes())
	switch mode {
	case "hold":
		time.Sleep(time.Hour)
	case "after":
		t.Live = false // a cell's setting: not saved with the run
		if _, err := t.Run(1); err != nil {
			return err
		}
		fmt.Println("ran")
		time.Sleep(time.Hour)
	case "run":
		passes, err := strconv.ParseFloat(args[3], 64)
		if err != nil {
			return err
		}
		if _, err := t.Run(passes); err != nil {
			return err
		}
		fmt.Printf("done at pass %.6g\n", t.Passes())
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	return nil
}
