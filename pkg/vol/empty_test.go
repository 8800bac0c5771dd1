package vol

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"testing"
)

// Empty leaves a file 0 bytes long under its name and attributes, and its
// clusters free once the volume commits (not before: until the entry that
// named them is durable they stay in use); Create then writes the new file
// into them. FileClusters counts what the file holds.
func TestEmptyThenCreate(t *testing.T) {
	old := bytes.Repeat([]byte("old data "), 40000)
	nw := bytes.Repeat([]byte("new "), 80000)
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			if err := v.Mkdir("boot", stamp); err != nil {
				t.Fatal(err)
			}
			write(t, v, "boot/kernel8.img", old)
			if err := v.SetAttr("boot/kernel8.img", AttrSystem, 0); err != nil {
				t.Fatal(err)
			}
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			fi, err := v.Stat("boot/kernel8.img")
			if err != nil {
				t.Fatal(err)
			}
			held, err := v.FileClusters(fi)
			if err != nil {
				t.Fatal(err)
			}
			if want := (int64(len(old)) + v.ClusterSize() - 1) / v.ClusterSize(); held != want {
				t.Fatalf("FileClusters: %d, want %d", held, want)
			}
			free := int64(v.FreeClusters())
			if err := v.Empty("boot/kernel8.img"); err != nil {
				t.Fatal(err)
			}
			if got := int64(v.FreeClusters()); got != free {
				t.Fatalf("free clusters before the commit: %d, want %d (still named on disk)", got, free)
			}
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := int64(v.FreeClusters()); got != free+held {
				t.Fatalf("free clusters after the commit: %d, want %d", got, free+held)
			}
			fi, err = v.Stat("BOOT/KERNEL8.IMG")
			if err != nil {
				t.Fatal(err)
			}
			if e := v.Entry(fi); fi.Size() != 0 || e.FirstCluster != 0 || e.Name != "kernel8.img" || e.Attr&AttrSystem == 0 {
				t.Fatalf("after Empty: size %d, entry %+v", fi.Size(), e)
			}
			if n, _ := v.FileClusters(fi); n != 0 {
				t.Fatalf("an empty file holds %d clusters", n)
			}
			write(t, v, "boot/kernel8.img", nw)
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			f, err := v.Open("boot/kernel8.img")
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(f)
			f.Close()
			if err != nil || !bytes.Equal(got, nw) {
				t.Fatalf("read back %d bytes (%v), want the %d written", len(got), err, len(nw))
			}
			if err := v.Empty("boot"); err == nil {
				t.Fatal("Empty of a folder: no error")
			}
			if err := v.Empty("boot/nosuch"); err == nil || !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Empty of a missing file: %v", err)
			}
		})
	}
}
