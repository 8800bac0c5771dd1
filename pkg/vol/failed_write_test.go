package vol

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"testing"
)

// A Writer whose Write (or ReadFrom) failed is not recorded by Close: an
// io.Writer's caller often calls Close, not Abort, after an error, and the
// volume must not then hold a short file under the name (nor, replacing
// one, lose the old file). Close returns the write's error; the clusters
// come back.
func TestCloseAfterFailedWrite(t *testing.T) {
	for typ, v := range volumes(t) {
		for _, how := range []string{"Write", "ReadFrom"} {
			write(t, v, "old.bin", []byte("the old contents"))
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			free := v.FreeClusters()
			big := int64(free+4) * v.ClusterSize()
			for _, name := range []string{"new.bin", "old.bin"} {
				w, err := v.Create(name, 0, stamp)
				if err != nil {
					t.Fatal(err)
				}
				var werr error
				if how == "Write" {
					_, werr = w.Write(make([]byte, big))
				} else {
					_, werr = w.(io.ReaderFrom).ReadFrom(io.LimitReader(zeros{}, big))
				}
				if !IsFull(werr) {
					t.Fatalf("%s %s %s: %v, want a full volume", typ, how, name, werr)
				}
				// The file is lost from here on: a later write says so
				// again, never nil.
				if _, err := w.Write([]byte("x")); !IsFull(err) {
					t.Fatalf("%s %s %s: a Write after a failed one: %v, want the first error", typ, how, name, err)
				}
				cerr := w.Close()
				if !IsFull(cerr) {
					t.Fatalf("%s %s %s: Close after a failed write: %v, want the write's error", typ, how, name, cerr)
				}
				if err := v.Commit(); err != nil {
					t.Fatal(err)
				}
				if got := v.FreeClusters(); got != free {
					t.Errorf("%s %s %s: %d clusters free after, %d before", typ, how, name, got, free)
				}
			}
			if _, err := v.Stat("new.bin"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s %s: a file whose write failed was recorded: %v", typ, how, err)
			}
			got, err := fs.ReadFile(volFS{v}, "old.bin")
			if err != nil || !bytes.Equal(got, []byte("the old contents")) {
				t.Errorf("%s %s: the replaced file reads %q, %v", typ, how, got, err)
			}
			if err := v.Remove("old.bin"); err != nil {
				t.Fatal(err)
			}
		}
		dev := v.Device()
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		checkClean(t, dev, typ)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type volFS struct{ v Volume }

func (f volFS) Open(name string) (fs.File, error) { return f.v.Open(name) }
