package vol

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

// Close with a Writer still open says so, naming the file, and drops it
// (as Abort does) while writing every other change: the volume reopens
// clean, with the closed files and without the dropped one; the dropped
// writer's later calls fail with ErrClosed.
func TestCloseWithWriterOpen(t *testing.T) {
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			write(t, v, "kept.txt", []byte("kept"))
			w, err := v.Create("half.bin", 0, stamp)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(bytes.Repeat([]byte("x"), 100000)); err != nil {
				t.Fatal(err)
			}
			err = v.Close()
			if !errors.Is(err, ErrWriterOpen) || !strings.Contains(err.Error(), `"half.bin"`) {
				t.Fatalf("Close with a writer open: %v, want ErrWriterOpen naming half.bin", err)
			}
			if _, err := w.Write([]byte("more")); !errors.Is(err, ErrClosed) {
				t.Errorf("Write after the volume's Close: %v, want ErrClosed", err)
			}
			if err := w.Close(); !errors.Is(err, ErrClosed) {
				t.Errorf("Writer.Close after the volume's Close: %v, want ErrClosed", err)
			}
			w.Abort() // does nothing, does not panic
			r, err := Open(v.Device())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.WasDirty() {
				t.Error("the volume was left dirty")
			}
			if b, err := fs.ReadFile(r, "kept.txt"); err != nil || string(b) != "kept" {
				t.Errorf("kept.txt: %q, %v", b, err)
			}
			if _, err := r.Stat("half.bin"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the dropped file: %v, want it absent", err)
			}
			if r.FreeClusters() != v.FreeClusters() {
				t.Errorf("%d clusters free after reopening, %d at Close: the dropped file's clusters leaked", r.FreeClusters(), v.FreeClusters())
			}
		})
	}
}

// Every call that can fail fails with ErrClosed once the volume is closed
// (files opened before included); the facts that cannot fail still answer
// without a panic.
func TestCallsAfterClose(t *testing.T) {
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			write(t, v, "a.txt", []byte("hello"))
			f, err := v.Open("a.txt")
			if err != nil {
				t.Fatal(err)
			}
			fi, err := v.Stat("a.txt")
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			calls := map[string]error{
				"Close":        v.Close(),
				"Open":         func() error { _, err := v.Open("a.txt"); return err }(),
				"Stat":         func() error { _, err := v.Stat("a.txt"); return err }(),
				"ReadDir":      func() error { _, err := v.ReadDir("."); return err }(),
				"Runs":         func() error { _, err := v.Runs(fi); return err }(),
				"FileClusters": func() error { _, err := v.FileClusters(fi); return err }(),
				"Create":       func() error { _, err := v.Create("b", 0, stamp); return err }(),
				"Mkdir":        v.Mkdir("d", stamp),
				"MkdirAll":     v.MkdirAll("d/e", stamp),
				"Remove":       v.Remove("a.txt"),
				"Empty":        v.Empty("a.txt"),
				"RemoveAll":    v.RemoveAll("a.txt"),
				"CheckTree":    v.CheckTree("."),
				"Rename":       v.Rename("a.txt", "b.txt"),
				"SetAttr":      v.SetAttr("a.txt", AttrHidden, 0),
				"Fallocate":    func() error { _, err := v.Fallocate("a.txt", 10, FallocateOptions{}); return err }(),
				"SetLabel":     v.SetLabel("X"),
				"SetSerial":    v.SetSerial(1),
				"Commit":       v.Commit(),
				"Label":        func() error { _, err := v.Label(); return err }(),
				"RootLabel":    func() error { _, _, err := v.RootLabel(); return err }(),
				"File.Read":    func() error { _, err := f.Read(make([]byte, 5)); return err }(),
				"File.Stat":    func() error { _, err := f.Stat(); return err }(),
				"ReadAhead": func() error {
					ra := v.ReadAhead([]string{"a.txt"}, ReadAheadOptions{})
					defer ra.Close()
					_, err := ra.File(0)
					return err
				}(),
			}
			for name, err := range calls {
				if !errors.Is(err, ErrClosed) {
					t.Errorf("%s after Close: %v, want ErrClosed", name, err)
				}
			}
			if err := f.Close(); err != nil {
				t.Errorf("closing a file after the volume: %v", err)
			}
			_ = []any{v.Type(), v.Entry(fi), v.FoldName("a"), v.Serial(), v.ClusterSize(), v.ClusterOffset(2),
				v.Clusters(), v.FreeClusters(), v.MaxFileSize(), v.Device(), v.Warnings(), v.WasDirty(), v.Now()}
			v.SetClock(nil)
		})
	}
}

// Every method of Volume is one the locked volume defines itself (under
// its lock and closed check), not one promoted, unguarded, from the
// adapter it embeds: a method added to the interface must be added here.
func TestEveryMethodGuarded(t *testing.T) {
	fset := token.NewFileSet()
	var decls []ast.Decl
	for _, name := range []string{"lifetime.go", "lockedupdate.go"} {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		decls = append(decls, f.Decls...)
	}
	own := map[string]bool{}
	for _, d := range decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil {
			continue
		}
		if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok && id.Name == "locked" {
				own[fd.Name.Name] = true
			}
		}
	}
	it := reflect.TypeFor[Volume]()
	for i := range it.NumMethod() {
		if m := it.Method(i).Name; !own[m] {
			t.Errorf("Volume.%s is not guarded by *locked (lifetime.go, lockedupdate.go)", m)
		}
	}
}

// Closing a writable device under an open volume is refused (fio.ErrInUse,
// naming the volume): the volume's changes are not lost, and its Close
// still writes them and clears the dirty bit. A read-only device may be
// closed (nothing waits to be written); the volume's next call says so.
func TestDeviceClosedUnderVolume(t *testing.T) {
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			dev := v.Device()
			write(t, v, "a.txt", []byte("not lost"))
			if err := dev.Close(); !errors.Is(err, fio.ErrInUse) || !strings.Contains(err.Error(), "volume") {
				t.Fatalf("closing the device under a live volume: %v, want ErrInUse", err)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := fs.ReadFile(r, "a.txt"); err != nil || string(b) != "not lost" || r.WasDirty() {
				t.Fatalf("after Close: %q, %v, dirty %v", b, err, r.WasDirty())
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if err := dev.Close(); err != nil {
				t.Fatalf("closing the device after the volume: %v", err)
			}
		})
	}
	for kind, img := range images(t) {
		t.Run(kind+"/read-only", func(t *testing.T) {
			dev, err := fio.NewReaderDevice(bytes.NewReader(img), int64(len(img)), fio.SourceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			if err := dev.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := v.ReadDir("."); !errors.Is(err, fio.ErrClosed) {
				t.Errorf("ReadDir once the device is closed: %v, want fio.ErrClosed", err)
			}
			if err := v.Close(); !errors.Is(err, fio.ErrClosed) {
				t.Errorf("Close once the device is closed: %v, want fio.ErrClosed", err)
			}
		})
	}
}

// ErrClosed is one sentinel for vol and both codecs, and so is the
// read-only refusal: errors.Is matches across them, and each text keeps
// its package's prefix.
func TestClosedAndReadOnlyAreOneKind(t *testing.T) {
	for _, set := range [][]error{{ErrClosed, fat.ErrClosed, exfat.ErrClosed}, {fat.ErrReadOnly, exfat.ErrReadOnly}} {
		for _, a := range set {
			for _, b := range set {
				if !errors.Is(fmt.Errorf("x: %w", a), b) {
					t.Errorf("%q is not %q", a, b)
				}
			}
		}
	}
	if !IsReadOnly(fat.ErrReadOnly) || !IsReadOnly(exfat.ErrReadOnly) || !IsReadOnly(fio.ErrReadOnly) || IsReadOnly(ErrClosed) {
		t.Error("IsReadOnly")
	}
	if got := fat.ErrClosed.Error() + "|" + ErrClosed.Error(); got != "fat: volume is closed|vol: volume is closed" {
		t.Errorf("texts: %s", got)
	}
}
