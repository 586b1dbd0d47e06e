package ssvmnb

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync/atomic"
)

// The stop button of a notebook (and a kernel interrupt) sends SIGINT to
// the cell's program, which GoNB kills 5 s later. The calls that train
// (Run, RunUntil, Seeds, the sweeps, Tune) catch it while they work: the
// run stops at its next block step, is evaluated and stored well within
// those 5 s, and the call returns errInterrupted; every later call of the
// same program returns it at once, so that nothing the cell does after
// the interrupt runs on past what it stored. Outside these calls SIGINT
// keeps its default handling.

// errInterrupted is the error of a call stopped by SIGINT.
var errInterrupted = errors.New("interrupted (SIGINT: the stop button)")

// interrupted is set once the program got SIGINT during a call.
var interrupted atomic.Bool

// interruptible returns ctx, canceled as well by SIGINT, and the function
// that ends the catch (SIGINT then has its default handling again unless
// another call catches it). After an interrupt the context returned is
// canceled from the start.
func interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	if interrupted.Load() {
		cancel()
		return ctx, func() {}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-sig:
			interrupted.Store(true) // before the cancel the run sees
			cancel()
		case <-quit:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(quit)
		<-exited
		cancel()
	}
}
