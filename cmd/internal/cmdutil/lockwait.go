package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	fio "github.com/ftools/ftools/pkg/io"
)

// openWaiting opens a device as pkg/io's Open does. With --wait (o.Wait),
// when another process holds the image's lock it says so on w (if not nil)
// and waits; SIGINT or SIGTERM then end the wait with exit status 130 or
// 143 and nothing opened, instead of being ignored until the lock comes.
func openWaiting(path string, o fio.Options, w io.Writer, name string) (*fio.Device, error) {
	if !o.Wait {
		return fio.Open(path, o)
	}
	try := o
	try.Wait = false
	d, err := fio.Open(path, try)
	if !errors.Is(err, fio.ErrLocked) {
		return d, err
	}
	// Catch the signals before saying so: from then on they end the wait.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if w != nil {
		Warn(w, name, "%s: another process holds its lock; waiting for it (--wait; interrupt to stop)", path)
	}
	cancel, stop, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var sig os.Signal
	go func() {
		defer close(done)
		select {
		case sig = <-sigs:
			close(cancel)
		case <-stop:
		}
	}()
	o.Cancel = cancel
	d, err = fio.Open(path, o)
	close(stop)
	<-done
	if sig != nil {
		// Even if the lock came with the signal, nothing has been read or
		// written yet: stop here.
		if d != nil {
			d.Close()
		}
		return nil, InterruptError(sig, fmt.Sprintf("stopped waiting for the lock on %s; nothing was changed", path))
	}
	return d, err
}

// IsInterrupt reports whether err is the command's stop on SIGINT or SIGTERM
// (InterruptError): loops over operands end on it rather than go on.
func IsInterrupt(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee) && (ee.Code == 130 || ee.Code == 143)
}
