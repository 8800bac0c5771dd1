package fat

import (
	"bytes"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// A Writer used after its own Close refuses (fs.ErrClosed) and allocates
// nothing: clusters taken then would be named by no entry.
func TestWriteAfterWriterClose(t *testing.T) {
	v := allocVolume(t)
	w, err := v.Create("/a.bin", 0, time.Unix(0, 0))
	voltest.Put(t, w, err, []byte("ten bytes."))
	free := v.allocatable()
	if _, err := w.Write(make([]byte, 1<<20)); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Write after Close: %v, want fs.ErrClosed", err)
	}
	if _, err := w.ReadFrom(bytes.NewReader(make([]byte, 1<<20))); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadFrom after Close: %v, want fs.ErrClosed", err)
	}
	if got := v.allocatable(); got != free {
		t.Errorf("%d clusters free after the refused writes, %d before", got, free)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
}
