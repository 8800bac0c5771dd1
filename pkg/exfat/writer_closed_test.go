package exfat

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// A Writer used after its own Close refuses (fs.ErrClosed) and allocates
// nothing, as FAT's.
func TestWriteAfterWriterClose(t *testing.T) {
	_, v := memVolume(t, 4<<20, FormatParams{ClusterSize: 4096})
	w, err := v.Create("a.bin", 0, testTime)
	voltest.Put(t, w, err, []byte("ten bytes."))
	free := v.bitmap.free
	if _, err := w.Write(make([]byte, 1<<20)); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Write after Close: %v, want fs.ErrClosed", err)
	}
	if got := v.bitmap.free; got != free {
		t.Errorf("%d clusters free after the refused write, %d before", got, free)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
}
