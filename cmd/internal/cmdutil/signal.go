package cmdutil

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// The signals that stop a command: Ctrl-C, kill, and a closed terminal.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

var (
	sigMu     sync.Mutex
	caught    os.Signal
	deferring bool
	stopping  = make(chan struct{})
)

// CatchInterrupts takes over SIGINT, SIGTERM and SIGHUP. Until the command
// calls DeferInterrupts, a signal ends it at once with the shell's status
// (128 + the signal's number) and one message: nothing has been written
// yet. After DeferInterrupts, the first signal asks the command to stop at
// its next safe point (Stopping is closed, Interrupted reports it), and
// later signals are ignored, so that a command that is stopping always
// completes its commit and leaves a consistent volume. Commands that can
// stop cleanly call it first.
func CatchInterrupts() {
	ch := make(chan os.Signal, len(stopSignals))
	signal.Notify(ch, stopSignals...)
	go func() {
		for s := range ch {
			sigMu.Lock()
			if caught == nil {
				caught = s
				if !deferring {
					err := InterruptError(s, "stopped before anything was written")
					if WantsJSON(os.Args) {
						PrintJSON(os.Stdout, &Outcome{Error: err.Error(), ExitStatus: signalStatus(s)})
					}
					os.Exit(Report(os.Stderr, progName(), err))
				}
				close(stopping)
			}
			sigMu.Unlock()
		}
	}()
}

// DeferInterrupts marks the point from which the command writes: from now
// on a signal asks it to stop at its next safe point instead of ending it.
func DeferInterrupts() {
	sigMu.Lock()
	deferring = true
	sigMu.Unlock()
}

// Stopping is closed when a signal has asked the command to stop.
func Stopping() <-chan struct{} { return stopping }

// Interrupted returns the signal that asked the command to stop, if any.
func Interrupted() (os.Signal, bool) {
	sigMu.Lock()
	defer sigMu.Unlock()
	return caught, caught != nil
}

// InterruptError is the error a command returns after stopping for sig:
// exit status 130 for SIGINT, 143 for SIGTERM and 129 for SIGHUP, as
// shells report them.
func InterruptError(sig os.Signal, what string) error {
	return Exit(signalStatus(sig), fmt.Errorf("interrupted by %s: %s", SignalName(sig), what))
}

// signalStatus is the exit status a shell reports for a command that a
// signal ended: 128 + its number.
func signalStatus(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// SignalName is a signal's name as kill(1) spells it ("SIGINT").
func SignalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}
