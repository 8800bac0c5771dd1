package vol

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

// images returns a fresh formatted image of each kind, as bytes.
func images(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, kind := range []string{"FAT16", "exFAT"} {
		b := make([]byte, 16<<20)
		dev, err := fio.NewBytesDevice(b, fio.SourceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if kind == "exFAT" {
			_, _, err = exfat.Format(dev, exfat.FormatParams{Size: int64(len(b)), Serial: 7}, stamp)
		} else {
			_, _, err = fat.Format(dev, fat.FormatParams{Size: int64(len(b)), Type: fat.FAT16}, stamp)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := dev.Close(); err != nil {
			t.Fatal(err)
		}
		out[kind] = b
	}
	return out
}

// sliceWriter writes into a slice, the WriterAt half of a caller's
// storage.
type sliceWriter []byte

func (s sliceWriter) WriteAt(p []byte, off int64) (int, error) { return copy(s[off:], p), nil }

// A volume opens on bytes the caller brings: a []byte (changed in place),
// a ReaderAt+WriterAt (pkg/io tests its flush through Sync), an *os.File
// (left open), or a path (the volume owns and closes the device).
func TestOpenOnCallersBytes(t *testing.T) {
	data := bytes.Repeat([]byte("bring your own bytes "), 5000)
	for kind, img := range images(t) {
		t.Run(kind, func(t *testing.T) {
			v, err := OpenBytes(img)
			if err != nil {
				t.Fatal(err)
			}
			if v.Type() != kind {
				t.Fatalf("type %s", v.Type())
			}
			write(t, v, "mem.txt", data)
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}

			rw := struct {
				io.ReaderAt
				io.WriterAt
			}{bytes.NewReader(img), sliceWriter(img)}
			if v, err = OpenReadWriterAt(rw, int64(len(img))); err != nil {
				t.Fatal(err)
			}
			if got, err := fs.ReadFile(v, "mem.txt"); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("mem.txt through the ReaderAt: %d bytes, %v", len(got), err)
			}
			write(t, v, "rw.txt", data[:1000])
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}

			path := filepath.Join(t.TempDir(), "card.img")
			if err := os.WriteFile(path, img, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if v, err = OpenOSFile(f, true); err != nil {
				t.Fatal(err)
			}
			write(t, v, "file.txt", data[:3000])
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Stat(); err != nil {
				t.Fatalf("the caller's file was closed: %v", err)
			}

			if v, err = OpenFile(path, fio.Options{}); err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string][]byte{"mem.txt": data, "rw.txt": data[:1000], "file.txt": data[:3000]} {
				if got, err := fs.ReadFile(v, name); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s through OpenFile: %d bytes, %v", name, len(got), err)
				}
			}
			dev := v.Device()
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if !dev.Closed() {
				t.Error("OpenFile's volume left its device open")
			}
		})
	}
}

// A volume on a read-only source reads, and every change fails with a
// read-only error (IsReadOnly; no panic); the bytes stay as they were.
func TestOpenReaderAtReadOnly(t *testing.T) {
	for kind, img := range images(t) {
		t.Run(kind, func(t *testing.T) {
			v, err := OpenBytes(img)
			if err != nil {
				t.Fatal(err)
			}
			write(t, v, "a.txt", []byte("hello"))
			if err := v.Mkdir("dir", stamp); err != nil {
				t.Fatal(err)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			before := bytes.Clone(img)
			if v, err = OpenReaderAt(bytes.NewReader(img), int64(len(img))); err != nil {
				t.Fatal(err)
			}
			if got, err := fs.ReadFile(v, "a.txt"); err != nil || string(got) != "hello" {
				t.Fatalf("a.txt: %q, %v", got, err)
			}
			for what, err := range map[string]error{
				"Create":    func() error { _, err := v.Create("b.txt", 0, stamp); return err }(),
				"Mkdir":     v.Mkdir("new", stamp),
				"MkdirAll":  v.MkdirAll("x/y", stamp),
				"Remove":    v.Remove("a.txt"),
				"Empty":     v.Empty("a.txt"),
				"RemoveAll": v.RemoveAll("dir"),
				"Rename":    v.Rename("a.txt", "c.txt"),
				"SetAttr":   v.SetAttr("a.txt", AttrHidden, 0),
				"Fallocate": func() error { _, err := v.Fallocate("a.txt", 1<<20, FallocateOptions{}); return err }(),
				"SetLabel":  v.SetLabel("NEW"),
				"SetSerial": v.SetSerial(42),
			} {
				if !IsReadOnly(err) {
					t.Errorf("%s on a read-only source: %v, want a read-only error", what, err)
				}
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(img, before) {
				t.Error("the read-only source changed")
			}
		})
	}
}

// A second writable volume on an image this process has open for writing
// is refused: each would allocate without seeing the other's clusters,
// and one's files would be lost.
func TestOpenFileTwiceForWriting(t *testing.T) {
	img := filepath.Join(t.TempDir(), "a.img")
	if err := os.WriteFile(img, make([]byte, 64<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Format(dev, FormatOptions{ExFAT: &ExFATParams{}}); err != nil {
		t.Fatal(err)
	}
	dev.Close()
	v, err := OpenFile(img, fio.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if w, err := OpenFile(img, fio.Options{Write: true}); !errors.Is(err, fio.ErrLocked) {
		if w != nil {
			w.Close()
		}
		t.Fatalf("a second writable volume on the image: %v, want fio.ErrLocked", err)
	}
}
