package exfat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// openVol opens the volume in img (writable or not) with the test clock.
func openVol(t testing.TB, img string, write bool) *Volume {
	t.Helper()
	v, err := Open(openDev(t, img, write))
	if err != nil {
		t.Fatal(err)
	}
	v.Clock = func() time.Time { return testTime }
	return v
}

// pattern returns n bytes that differ per file and per position.
func pattern(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// closeVol closes the volume and its device.
func closeVol(t testing.TB, v *Volume) {
	t.Helper()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := v.Device().Close(); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, v *Volume, name string, data []byte, hint int64) {
	t.Helper()
	w, err := v.Create(name, hint, testTime)
	if err != nil {
		t.Fatal(err)
	}
	for p := data; len(p) > 0; {
		n := min(len(p), 100_000)
		if _, err := w.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, v *Volume, name string) []byte {
	t.Helper()
	f, err := v.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWriteRead writes files of the boundary sizes, directories and long
// and non-ASCII names, then checks the image with fsck.exfat and reads it
// back, through the volume and through fstest.TestFS.
func TestWriteRead(t *testing.T) {
	img := formatImage(t, 64<<20, FormatParams{Label: "TEST"})
	v := openVol(t, img, true)
	cs := int(v.Layout().ClusterSize)
	files := map[string][]byte{}
	for i, n := range []int{0, 1, cs - 1, cs, cs + 1, 3*cs + 17, 200_000} {
		files[fmt.Sprintf("f%d.bin", i)] = pattern(uint64(i), n)
	}
	for _, d := range []string{"a", "a/b", "a/b/c", "Ünïcödé dïr"} {
		if err := v.Mkdir(d, testTime); err != nil {
			t.Fatal(err)
		}
	}
	files["a/b/c/"+strings.Repeat("long name ", 25)+"x"] = pattern(99, 5000)
	files["Ünïcödé dïr/日本語のファイル名.txt"] = []byte("hello")
	for name, data := range files {
		writeFile(t, v, name, data, int64(len(data)))
	}
	closeVol(t, v)
	fsckClean(t, img)

	v = openVol(t, img, false)
	defer closeVol(t, v)
	for name, data := range files {
		if got := readFile(t, v, name); !bytes.Equal(got, data) {
			t.Errorf("%s: read %d bytes, want %d (equal %v)", name, len(got), len(data), bytes.Equal(got, data))
		}
	}
	// Lookups compare up-cased names.
	if _, err := v.Stat("A/B/C"); err != nil {
		t.Errorf("case-insensitive lookup: %v", err)
	}
	if _, err := v.Stat("ünïcödé DÏR"); err != nil {
		t.Errorf("case-insensitive non-ASCII lookup: %v", err)
	}
	var expect []string
	for name := range files {
		expect = append(expect, name)
	}
	if err := fstest.TestFS(v.FS(), expect...); err != nil {
		t.Fatal(err)
	}
}

// TestReplaceRemove replaces, removes and re-creates files and checks the
// free count comes back and fsck.exfat stays clean.
func TestReplaceRemove(t *testing.T) {
	img := formatImage(t, 32<<20, FormatParams{})
	v := openVol(t, img, true)
	free0 := v.FreeClusters()
	writeFile(t, v, "x", pattern(1, 100_000), 100_000)
	writeFile(t, v, "x", pattern(2, 300_000), 0) // replace, no hint
	if err := v.Mkdir("d", testTime); err != nil {
		t.Fatal(err)
	}
	writeFile(t, v, "d/y", pattern(3, 10), 10)
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := v.Remove("d"); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("removing a full directory: %v, want ENOTEMPTY", err)
	}
	if err := v.Remove("d/y"); err != nil {
		t.Fatal(err)
	}
	if err := v.Remove("d"); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	fsckClean(t, img)
	v = openVol(t, img, true)
	if got := readFile(t, v, "x"); !bytes.Equal(got, pattern(2, 300_000)) {
		t.Fatal("replaced file reads back wrong")
	}
	if _, err := v.Stat("d"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("removed directory: %v", err)
	}
	if err := v.Remove("x"); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	v = openVol(t, img, false)
	if v.FreeClusters() != free0 {
		t.Fatalf("free clusters %d after removing everything, want %d", v.FreeClusters(), free0)
	}
	fsckClean(t, img)
}
