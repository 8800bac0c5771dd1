package fat

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
)

// faultyVolume formats an in-memory FAT32 volume whose device fails every
// write once *failing is set, and opens it.
func faultyVolume(t *testing.T, failing *atomic.Bool) (*fio.Device, *Volume) {
	t.Helper()
	errInjected := errors.New("injected write failure")
	dev := fio.NewFaultyMemDevice(64<<20, 512, func(off, n int64) error {
		if failing.Load() {
			return errInjected
		}
		return nil
	})
	if _, _, err := Format(dev, FormatParams{Size: 64 << 20, Type: FAT32, SectorsPerCluster: 1}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	return dev, v
}

// Close reports a failed write of data still queued (a Writer never
// closed), and keeps the data stream's own Close error, as exFAT's Close
// does. (The commit before it flushes the stream, so today the commit
// reports the failure first; the stream's error is no longer dropped
// should that change.)
func TestCloseReportsDataStreamError(t *testing.T) {
	var failing atomic.Bool
	_, v := faultyVolume(t, &failing)
	w, err := v.Create("/aborted.bin", 0, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("queued, never closed")); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	if err := v.Close(); err == nil {
		t.Error("Close returned nil though the queued data's write failed")
	}
}
