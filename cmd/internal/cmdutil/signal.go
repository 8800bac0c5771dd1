package cmdutil

import (
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

var caught atomic.Value // os.Signal

// CatchInterrupts makes SIGINT and SIGTERM ask the command to stop at its
// next safe point (Interrupted reports it) instead of killing it; a second
// signal kills it as usual. Commands that can stop cleanly call it first.
func CatchInterrupts() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-ch
		caught.Store(s)
		signal.Reset(syscall.SIGINT, syscall.SIGTERM)
	}()
}

// Interrupted returns the signal that asked the command to stop, if any.
func Interrupted() (os.Signal, bool) {
	s, ok := caught.Load().(os.Signal)
	return s, ok
}

// InterruptError is the error a command returns after stopping for sig:
// exit status 130 for SIGINT and 143 for SIGTERM, as shells report them.
func InterruptError(sig os.Signal, what string) error {
	code := 130
	if sig == syscall.SIGTERM {
		code = 143
	}
	return Exit(code, fmt.Errorf("interrupted by %s: %s", signalName(sig), what))
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
