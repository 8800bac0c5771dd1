package fat

import (
	"bytes"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// fsVolume makes an in-memory FAT32 volume holding files (path -> content)
// and reopens it read-only.
func fsVolume(t *testing.T, clusterSectors int, files map[string]string) *Volume {
	t.Helper()
	dev, v := formatMem(t, FormatParams{Size: 64 << 20, Type: FAT32, SectorsPerCluster: clusterSectors}, time.Unix(0, 0))
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	for name, data := range files {
		if i := strings.LastIndex(name, "/"); i > 0 {
			if err := v.MkdirAll(name[:i], mtime); err != nil {
				t.Fatal(err)
			}
		}
		w, err := v.Create(name, int64(len(data)), mtime)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The volume is a conforming io/fs file system: testing/fstest opens,
// stats, lists and reads every file, and checks that invalid names
// ("/a", "a//b", "a/./b", `a\b`, "a/../a/b", "a/.") are refused.
func TestVolumeFSConformance(t *testing.T) {
	files := map[string]string{
		"a.txt":                     "hello",
		"Long Name With Spaces.bin": strings.Repeat("x", 3000),
		"sub/inner.txt":             "inner",
		"sub/deep/x":                strings.Repeat("0123456789", 500),
		"sub/empty":                 "",
	}
	v := fsVolume(t, 1, files)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	if err := fstest.TestFS(v, names...); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"/a.txt", "a.txt/.", "sub//inner.txt", "sub/./inner.txt", `sub\inner.txt`, "sub/../sub/inner.txt", "x/..", "/", "::/a.txt", ""} {
		if _, err := v.Open(bad); err == nil || !errorsIsInvalid(err) {
			t.Errorf("Open(%q): %v, want fs.ErrInvalid", bad, err)
		}
		if _, err := v.Stat(bad); err == nil || !errorsIsInvalid(err) {
			t.Errorf("Stat(%q): %v, want fs.ErrInvalid", bad, err)
		}
	}
	// A trailing slash says the name must be a directory.
	if _, err := v.Stat("sub/"); err != nil {
		t.Errorf("Stat(sub/): %v", err)
	}
	if _, err := v.Stat("a.txt/"); err == nil {
		t.Error("Stat(a.txt/) succeeded on a file")
	}
}

func errorsIsInvalid(err error) bool {
	pe, ok := err.(*fs.PathError)
	return ok && pe.Err == fs.ErrInvalid
}

// Reading a file costs time in proportion to the bytes read, whatever the
// buffer: small reads of a long run do not rescan the run (which made
// io.Copy of a contiguous 1 GiB file with 8 KiB reads take minutes). The
// test counts device requests: one per read, never more.
func TestFileReadLinear(t *testing.T) {
	data := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz012345"), 1<<15) // 1 MiB, 2048 clusters of 512 bytes
	v := fsVolume(t, 1, map[string]string{"big.bin": string(data)})
	f, err := v.Open("big.bin")
	if err != nil {
		t.Fatal(err)
	}
	before := v.Device().Stats().ReadRequests
	var got bytes.Buffer
	buf := make([]byte, 100) // not a divisor of the cluster size
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatal("content differs")
	}
	reads := v.Device().Stats().ReadRequests - before
	if want := int64(len(data)/len(buf) + 1); reads > want {
		t.Fatalf("%d device reads for %d reads of %d bytes", reads, want, len(buf))
	}
	// ReadAt anywhere, including across the end.
	ra := f.(io.ReaderAt)
	p := make([]byte, 1000)
	n, err := ra.ReadAt(p, int64(len(data))-500)
	if n != 500 || err != io.EOF || !bytes.Equal(p[:n], data[len(data)-500:]) {
		t.Fatalf("ReadAt at the end: %d, %v", n, err)
	}
	if n, err := ra.ReadAt(p, 12345); n != len(p) || err != nil || !bytes.Equal(p, data[12345:12345+len(p)]) {
		t.Fatalf("ReadAt in the middle: %d, %v", n, err)
	}
}
