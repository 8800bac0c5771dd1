// Package voltest holds the test helpers that pkg/fat's and pkg/exfat's
// tests share: writing a file through a codec's Writer, in-memory devices,
// the damaged-image corpus, and the checks that a damaged image reads
// each file whole or fails naming it. It is imported by tests only.
package voltest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/readahead"
	fio "github.com/ftools/ftools/pkg/io"
)

// Write fails tb unless err (from the Create that returned w) is nil and
// w takes data whole. It returns w.
func Write[W io.Writer](tb testing.TB, w W, err error, data []byte) W {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		tb.Fatal(err)
	}
	return w
}

// Put is Write, then Close.
func Put[W io.WriteCloser](tb testing.TB, w W, err error, data []byte) W {
	tb.Helper()
	Write(tb, w, err, data)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return w
}

// MemDevice is an in-memory device of 512-byte sectors holding img.
func MemDevice(tb testing.TB, img []byte) *fio.Device {
	tb.Helper()
	dev := fio.NewMemDevice(int64(len(img)), 512)
	if _, err := dev.WriteAt(img, 0); err != nil {
		tb.Fatal(err)
	}
	return dev
}

// DevBytes is the device's whole content.
func DevBytes(tb testing.TB, dev *fio.Device) []byte {
	tb.Helper()
	b := make([]byte, dev.Size())
	if _, err := dev.ReadAt(b, 0); err != nil {
		tb.Fatal(err)
	}
	return b
}

// LoadCorpus returns the gunzipped images (*.img.gz) in dir up to maxBytes
// each, sorted by name; none when dir is missing (a trimmed checkout).
// Larger images are left out.
func LoadCorpus(tb testing.TB, dir string, maxBytes int) [][]byte {
	tb.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.img.gz"))
	sort.Strings(names)
	var out [][]byte
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			tb.Fatalf("%s: %v", name, err)
		}
		b, err := io.ReadAll(io.LimitReader(zr, int64(maxBytes)+1))
		f.Close()
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		if len(b) <= maxBytes {
			out = append(out, b)
		}
	}
	return out
}

// readWholeOrNamed reads each of names through open and returns those that
// read back as data; the others must fail with fio.ErrOutOfRange naming
// the file (an image cut short), never read as zeros.
// The reader open returns is closed after reading if it is an io.Closer.
func readWholeOrNamed(tb testing.TB, names []string, data []byte, open func(i int) (io.Reader, error)) (whole []string) {
	tb.Helper()
	for i, n := range names {
		f, err := open(i)
		var got []byte
		if err == nil {
			got, err = io.ReadAll(f)
			if c, ok := f.(io.Closer); ok {
				c.Close()
			}
		}
		switch {
		case err == nil && bytes.Equal(got, data):
			whole = append(whole, n)
		case errors.Is(err, fio.ErrOutOfRange) && strings.Contains(err.Error(), strings.TrimPrefix(n, "/")):
		default:
			tb.Errorf("%s: %d bytes, %v: want the file whole or an error naming it", n, len(got), err)
		}
	}
	return whole
}

// CutShortReads checks a volume on an image cut short inside the files
// names, each written holding data: read through open (the volume's Open)
// and through ra (its ReadAhead over names), each file reads back whole
// or fails naming it, some are whole but not all, and both ways agree on
// which.
func CutShortReads(tb testing.TB, names []string, data []byte, open func(name string) (io.Reader, error), ra *readahead.ReadAhead) {
	tb.Helper()
	whole := readWholeOrNamed(tb, names, data, func(i int) (io.Reader, error) {
		f, err := open(names[i])
		if err != nil {
			tb.Fatal(err)
		}
		return f, nil
	})
	if len(whole) == 0 || len(whole) == len(names) {
		tb.Fatalf("files whole: %v: want some, not all", whole)
	}
	aheadWhole := readWholeOrNamed(tb, names, data, func(i int) (io.Reader, error) { return ra.File(i) })
	if strings.Join(aheadWhole, " ") != strings.Join(whole, " ") {
		tb.Errorf("read-ahead read %v whole, Open+Read %v", aheadWhole, whole)
	}
}

// CutShort writes each of names holding data through put, closes what
// closers close (the volume, then its device), and cuts the image file
// img to cut bytes: an image cut short as a truncated download is, its
// boot sector still describing the whole volume.
func CutShort(tb testing.TB, img string, cut int64, names []string, data []byte, put func(name string, data []byte), closers ...func() error) {
	tb.Helper()
	for _, n := range names {
		put(n, data)
	}
	for _, c := range closers {
		if err := c(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Truncate(img, cut); err != nil {
		tb.Fatal(err)
	}
}
