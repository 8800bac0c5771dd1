package fat

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// verbImage makes an image with mkfs.fat (-F bits) and fills it with mtools:
// files A.TXT (3 clusters), "Long Name.bin", SUB/INNER.TXT, SUB/DEEP/X.
func verbImage(t *testing.T, bits string) string {
	t.Helper()
	dir := t.TempDir()
	img := filepath.Join(dir, "img")
	size := map[string]string{"12": "1900", "16": "20480", "32": "70000"}[bits]
	if out, err := runTool(t, "mkfs.fat", "-F", bits, "-s", "1", "-C", img, size); err != nil {
		t.Fatalf("mkfs.fat: %v\n%s", err, out)
	}
	host := filepath.Join(dir, "f")
	if err := os.WriteFile(host, []byte(strings.Repeat("x", 1200)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mcopy", "-i", img, host, "::/A.TXT"},
		{"mcopy", "-i", img, host, "::/Long Name.bin"},
		{"mmd", "-i", img, "::/SUB"},
		{"mcopy", "-i", img, host, "::/SUB/INNER.TXT"},
		{"mmd", "-i", img, "::/SUB/DEEP"},
		{"mcopy", "-i", img, host, "::/SUB/DEEP/X"},
	} {
		if out, err := runTool(t, args[0], args[1:]...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	return img
}

// openVerb opens an image read-write; the device closes with the test.
func openVerb(t *testing.T, img string) *Volume {
	t.Helper()
	dev, err := fio.Open(img, fio.Options{Write: true, Buffered: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// closeVerb closes the volume and its device.
func closeVerb(t *testing.T, v *Volume) {
	t.Helper()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := v.Device().Close(); err != nil {
		t.Fatal(err)
	}
}

// recOf is the record of name on v.
func recOf(t *testing.T, v *Volume, name string) *Record {
	t.Helper()
	return voltest.Sys[*Record](t, v.Stat, name)
}

// dotDot returns the cluster the ".." entry of directory name holds.
func dotDot(t *testing.T, v *Volume, name string) Cluster {
	t.Helper()
	d, err := v.loadDir(recOf(t, v, name).Entry.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.recs {
		if r != nil && r.Short == DotDotName {
			return r.Entry.Cluster
		}
	}
	t.Fatalf("%s has no .. entry", name)
	return 0
}

func TestRename(t *testing.T) {
	for _, bits := range []string{"12", "16", "32"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img := verbImage(t, bits)
			v := openVerb(t, img)
			before := recOf(t, v, "A.TXT").Entry
			chain, err := Chain(v.Table(), before.Cluster)
			if err != nil {
				t.Fatal(err)
			}
			free := v.FreeClusters()
			for _, step := range [][2]string{
				{"A.TXT", "b.txt"},                 // rename in place
				{"b.txt", "SUB/moved.txt"},         // move into a directory
				{"SUB/moved.txt", "SUB/MOVED.TXT"}, // change of case
				{"SUB/DEEP", "TOP"},                // directory to the root
				{"TOP", "SUB/DEEP2"},               // and back below SUB
			} {
				if err := v.Rename(step[0], step[1]); err != nil {
					t.Fatalf("Rename(%q, %q): %v", step[0], step[1], err)
				}
			}
			if _, err := v.Stat("A.TXT"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("A.TXT still there: %v", err)
			}
			r := recOf(t, v, "SUB/MOVED.TXT")
			if r.Name != "MOVED.TXT" || r.Entry.Cluster != before.Cluster || r.Entry.Size != before.Size ||
				r.Entry.ModDate != before.ModDate || r.Entry.ModTime != before.ModTime || r.Entry.Attr != before.Attr {
				t.Errorf("moved entry %q %+v, want the data of %+v", r.Name, r.Entry, before)
			}
			if got := dotDot(t, v, "SUB/DEEP2"); got != recOf(t, v, "SUB").Entry.Cluster {
				t.Errorf("SUB/DEEP2/.. = %d, want SUB's cluster %d", got, recOf(t, v, "SUB").Entry.Cluster)
			}
			if v.FreeClusters() != free {
				t.Errorf("free clusters %d, want %d unchanged", v.FreeClusters(), free)
			}
			closeVerb(t, v)
			fsckClean(t, img)
			v = openVerb(t, img)
			got, err := Chain(v.Table(), recOf(t, v, "SUB/MOVED.TXT").Entry.Cluster)
			if err != nil || len(got) != len(chain) || got[0] != chain[0] {
				t.Errorf("chain after move %v (%v), want %v", got, err, chain)
			}
			if b, err := fs.ReadFile(v, "SUB/DEEP2/X"); err != nil || len(b) != 1200 {
				t.Errorf("SUB/DEEP2/X: %d bytes, %v", len(b), err)
			}
			if out, err := runTool(t, "mdir", "-b", "-i", img, "::/SUB"); err != nil || !strings.Contains(out, "MOVED.TXT") || !strings.Contains(out, "DEEP2") {
				t.Errorf("mdir -b ::/SUB: %v\n%s", err, out)
			}
		})
	}
}

// A directory moved to the root gets 0 in its ".." entry.
func TestRenameDotDotRoot(t *testing.T) {
	img := verbImage(t, "32")
	v := openVerb(t, img)
	if err := v.Rename("SUB/DEEP", "DEEP"); err != nil {
		t.Fatal(err)
	}
	if got := dotDot(t, v, "DEEP"); got != 0 {
		t.Errorf("DEEP/.. = %d, want 0", got)
	}
	closeVerb(t, v)
	fsckClean(t, img)
}

func TestRenameReplaceFreesOld(t *testing.T) {
	img := verbImage(t, "16")
	v := openVerb(t, img)
	free := v.FreeClusters()
	old := recOf(t, v, "SUB/INNER.TXT").Entry.Cluster
	if err := v.Rename("A.TXT", "SUB/inner.txt"); err != nil {
		t.Fatal(err)
	}
	closeVerb(t, v)
	fsckClean(t, img)
	v = openVerb(t, img)
	if got := v.FreeClusters(); got != free+3 {
		t.Errorf("free clusters %d, want %d + 3 (the replaced file's)", got, free)
	}
	if !v.Table().IsFree(v.Table().Get(old)) {
		t.Errorf("cluster %d of the replaced file is still in use", old)
	}
	if _, err := v.Stat("A.TXT"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("A.TXT still there: %v", err)
	}
}

func TestRenameRefuses(t *testing.T) {
	img := verbImage(t, "12")
	v := openVerb(t, img)
	for _, c := range []struct {
		from, to string
		want     error
	}{
		{"SUB", "SUB/DEEP/SUB", ErrIntoItself},
		{"SUB", "SUB/X2", ErrIntoItself},
		{"SUB", "A.TXT", syscall.ENOTDIR},
		{"A.TXT", "SUB", syscall.EISDIR},
		{"SUB/DEEP", "SUB/../SUB", syscall.ENOTEMPTY},
		{"NOPE", "X", fs.ErrNotExist},
		{"A.TXT", "NODIR/X", fs.ErrNotExist},
		{"A.TXT", "a:b", nil}, // any error
	} {
		err := v.Rename(c.from, c.to)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("Rename(%q, %q) = %v, want %v", c.from, c.to, err, c.want)
		}
	}
	if err := v.Rename("A.TXT", "a.txt"); err != nil {
		t.Errorf("change of case: %v", err)
	}
	closeVerb(t, v)
	fsckClean(t, img)
}
