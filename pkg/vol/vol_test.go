package vol

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

var stamp = time.Date(2026, 3, 4, 5, 6, 8, 0, time.UTC)

// volumes formats one volume of each kind in memory and opens it through
// Open, which must pick the file system from the boot sector.
func volumes(t *testing.T) map[string]Volume {
	t.Helper()
	out := map[string]Volume{}
	fd := fio.NewMemDevice(64<<20, 512)
	if _, _, err := fat.Format(fd, fat.FormatParams{Size: 64 << 20, Type: fat.FAT32, AllowSmallFAT32: true}, stamp); err != nil {
		t.Fatal(err)
	}
	xd := fio.NewMemDevice(64<<20, 512)
	if _, _, err := exfat.Format(xd, exfat.FormatParams{Size: 64 << 20, Serial: 0x1234ABCD}, stamp); err != nil {
		t.Fatal(err)
	}
	for want, dev := range map[string]*fio.Device{"FAT32": fd, "exFAT": xd} {
		v, err := Open(dev)
		if err != nil {
			t.Fatal(err)
		}
		if v.Type() != want {
			t.Fatalf("Open: %s, want %s", v.Type(), want)
		}
		v.SetClock(func() time.Time { return stamp })
		out[want] = v
	}
	return out
}

// checkClean checks the volume on dev as fverify does and fails the test,
// saying when (what), unless it is clean.
func checkClean(t *testing.T, dev *fio.Device, what string) {
	t.Helper()
	rep, err := Check(dev, CheckOptions{})
	if err != nil || !rep.Clean() {
		t.Fatalf("%s: %v, %+v", what, err, rep)
	}
	rep.Close()
}

func write(t *testing.T, v Volume, name string, data []byte) {
	t.Helper()
	w, err := v.Create(name, int64(len(data)), stamp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// The same calls do the same on both kinds of volume: files, folders,
// attributes, labels, serial numbers, preallocation, read-ahead.
func TestBothKinds(t *testing.T) {
	data := bytes.Repeat([]byte("ftools "), 20000)
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			if AsFAT(v) == nil == (kind == "FAT32") || AsExFAT(v) == nil == (kind == "exFAT") {
				t.Fatalf("AsFAT %v, AsExFAT %v", AsFAT(v), AsExFAT(v))
			}
			if err := v.MkdirAll("Photos/2026", stamp); err != nil {
				t.Fatal(err)
			}
			write(t, v, "Photos/2026/Beach.jpg", data)
			fi, err := v.Stat("photos/2026/BEACH.JPG") // without case
			if err != nil {
				t.Fatal(err)
			}
			e := v.Entry(fi)
			if e.Name != "Beach.jpg" || e.FirstCluster < 2 || e.Attr&AttrArchive == 0 || e.Root {
				t.Fatalf("Entry: %+v", e)
			}
			if (e.ShortName == "") != (kind == "exFAT") {
				t.Fatalf("short name %q on %s", e.ShortName, kind)
			}
			if n, err := v.Runs(fi); err != nil || n != 1 {
				t.Fatalf("Runs: %d, %v", n, err)
			}
			root, _ := v.Stat(".")
			if e := v.Entry(root); !e.Root || e.Attr != AttrDirectory {
				t.Fatalf("root Entry: %+v", e)
			}
			if err := v.SetAttr("Photos/2026/Beach.jpg", AttrHidden|AttrReadOnly, AttrArchive); err != nil {
				t.Fatal(err)
			}
			fi, _ = v.Stat("Photos/2026/Beach.jpg")
			if a := v.Entry(fi).Attr; a != AttrHidden|AttrReadOnly || a.String() != "RH" {
				t.Fatalf("attributes after SetAttr: %v", a)
			}
			if err := v.SetAttr("Photos/2026/Beach.jpg", AttrDirectory, 0); err == nil {
				t.Fatal("SetAttr set the directory bit")
			}
			if v.FoldName("straße") != v.FoldName("STRAßE") {
				t.Fatal("FoldName differs by case")
			}
			res, err := v.Fallocate("Photos/pre.bin", 1<<20, FallocateOptions{})
			if err != nil || !res.Created || res.Size != 1<<20 || len(res.Runs) != 1 || int64(res.Runs[0].Len)*v.ClusterSize() != 1<<20 {
				t.Fatalf("Fallocate: %+v, %v", res, err)
			}
			if off := v.ClusterOffset(res.Runs[0].Start); off <= 0 || off >= v.Device().Size() {
				t.Fatalf("ClusterOffset %d", off)
			}
			if err := v.SetLabel("Card"); err != nil {
				t.Fatal(err)
			}
			if err := v.SetSerial(0xCAFEF00D); err != nil {
				t.Fatal(err)
			}
			if err := v.Rename("Photos/2026/Beach.jpg", "Photos/beach.jpg"); err != nil {
				t.Fatal(err)
			}
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			ra := v.ReadAhead([]string{"Photos/beach.jpg", "Photos/pre.bin", "Photos"}, ReadAheadOptions{})
			defer ra.Close()
			for i, want := range [][]byte{data, make([]byte, 1<<20)} {
				f, err := ra.File(i)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(f)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("read-ahead file %d: %d bytes, %v", i, len(got), err)
				}
			}
			if _, err := ra.File(2); !errors.Is(err, fat.ErrIsDir) && !errors.Is(err, exfat.ErrIsDir) {
				t.Fatalf("read-ahead of a directory: %v", err)
			}
			if err := v.RemoveAll("Photos"); err != nil {
				t.Fatal(err)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			// What Close wrote, as the next session reads it.
			if v, err = Open(v.Device()); err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if _, err := v.Stat("Photos"); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Photos after RemoveAll: %v", err)
			}
			if l, _ := v.Label(); l != map[string]string{"FAT32": "CARD", "exFAT": "Card"}[kind] {
				t.Fatalf("label %q", l)
			}
			if v.Serial() != 0xCAFEF00D || v.FreeClusters() == 0 || v.FreeClusters() > v.Clusters() {
				t.Fatalf("serial %08x, free %d of %d", v.Serial(), v.FreeClusters(), v.Clusters())
			}
		})
	}
}

// exFAT refuses what its format cannot express, FAT what it cannot hold.
func TestKindLimits(t *testing.T) {
	vs := volumes(t)
	if _, err := vs["exFAT"].Fallocate("f", 4096, FallocateOptions{KeepSize: true}); !errors.Is(err, exfat.ErrUnsupported) {
		t.Fatalf("exFAT KeepSize: %v", err)
	}
	if _, err := vs["FAT32"].Create("big", fat.MaxFileSize+1, stamp); !errors.Is(err, fat.ErrFileTooLarge) {
		t.Fatalf("FAT file over 4 GiB: %v", err)
	}
	if vs["FAT32"].MaxFileSize() != fat.MaxFileSize || vs["exFAT"].MaxFileSize() > 64<<20 {
		t.Fatalf("MaxFileSize: %d, %d", vs["FAT32"].MaxFileSize(), vs["exFAT"].MaxFileSize())
	}
	_, err := vs["exFAT"].Create("huge", 1<<30, stamp)
	if ns := NoSpace(err); ns == nil || !IsFull(err) {
		t.Fatalf("a file larger than the volume: %v", err)
	}
}
