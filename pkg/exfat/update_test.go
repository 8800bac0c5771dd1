package exfat

import (
	"bytes"
	"io/fs"
	"os"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// updateVolume makes an exFAT volume with clusters of cs bytes holding
// "a/f.bin" of size bytes and, right after it, "b.bin", so that f grows
// into clusters apart from its own (and becomes chained).
func updateVolume(t *testing.T, cs int, size int) (*Volume, []byte, func() *Volume) {
	t.Helper()
	dev, v := memVolume(t, 8<<20, FormatParams{ClusterSize: int64(cs)})
	if err := v.Mkdir("a", testTime); err != nil {
		t.Fatal(err)
	}
	data := voltest.Pattern(size, 1)
	writeFile(t, v, "a/f.bin", data, int64(size))
	writeFile(t, v, "b.bin", voltest.Pattern(3000, 2), 3000)
	reopen := func() *Volume {
		t.Helper()
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		nv, err := Open(dev)
		if err != nil {
			t.Fatal(err)
		}
		v = nv
		return nv
	}
	return reopen(), data, reopen
}

func TestUpdaterWrites(t *testing.T) {
	var v *Volume
	var reopen func() *Volume
	start := func(t *testing.T, tc voltest.UpdateCase) *Updater {
		v, _, reopen = updateVolume(t, tc.ClusterSize, tc.Size)
		u, err := v.OpenFile("a/f.bin", tc.Flag)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	done := func(t *testing.T) (fs.FS, []string, int) {
		v = reopen()
		rep, err := Check(v, CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var problems []string
		for _, p := range rep.Problems {
			problems = append(problems, p.String())
		}
		fi, err := v.Stat("a/f.bin")
		if err != nil {
			t.Fatal(err)
		}
		r := fi.Sys().(*Record)
		s := r.Set.Stream
		if s.ValidDataLength > s.DataLength {
			t.Errorf("ValidDataLength %d past DataLength %d", s.ValidDataLength, s.DataLength)
		}
		exts, err := v.RecordExtents(r)
		if err != nil {
			t.Fatal(err)
		}
		if len(exts) > 1 && s.NoFATChain() {
			t.Errorf("%d runs under NoFatChain", len(exts))
		}
		return v, problems, len(exts)
	}
	voltest.UpdateTable(t, start, done)
}

// A write past the valid data length zeroes the gap from it, and raises
// it: the clusters' old bytes between never show.
func TestUpdaterValidDataLength(t *testing.T) {
	v, _, reopen := updateVolume(t, 4096, 0)
	res, err := v.Fallocate("a/f.bin", 20000, FallocateOptions{NoZero: true})
	if err != nil || res.Size != 20000 {
		t.Fatal(res, err)
	}
	// The clusters hold old bytes: put some there first.
	off := v.layout.ClusterOffset(res.Extents[0].Start)
	if _, err := v.dev.WriteAt(bytes.Repeat([]byte{0xAA}, 20000), off); err != nil {
		t.Fatal(err)
	}
	u, err := v.OpenFile("a/f.bin", os.O_WRONLY)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.WriteAt([]byte("xyz"), 9000); err != nil {
		t.Fatal(err)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	v = reopen()
	got, err := fs.ReadFile(v, "a/f.bin")
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 20000)
	copy(want[9000:], "xyz")
	voltest.SameBytes(t, got, want)
	fi, _ := v.Stat("a/f.bin")
	if vdl := fi.Sys().(*Record).Set.Stream.ValidDataLength; vdl != 9003 {
		t.Errorf("ValidDataLength %d, want 9003", vdl)
	}
	raw := make([]byte, 9000)
	if _, err := v.dev.ReadAt(raw, off); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, make([]byte, 9000)) {
		t.Error("the bytes before the write are not zeroed on the device")
	}
}

// OpenFile's refusals change nothing and say why.
func TestUpdaterRefusals(t *testing.T) {
	v, _, _ := updateVolume(t, 4096, 1000)
	read := func(name string) ([]byte, error) { return fs.ReadFile(v, name) }
	voltest.UpdateRefusals(t, v.OpenFile, ErrIsDir, read)
}
