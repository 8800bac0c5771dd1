package fat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
)

// Rewriting the boot sector (the dirty bit, the label) keeps the bytes
// BootSector does not model, in the primary and the backup alike, so the
// two stay equal (item 5 of issue 11: byte 0x34 became 0 in the primary).
func TestBootRewriteKeepsUnmodelledBytes(t *testing.T) {
	dev := fio.NewMemDevice(64<<20, 512)
	_, l, err := Format(dev, FormatParams{Size: 64 << 20, Type: FAT32, SectorsPerCluster: 1}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, l.BackupBootOffset} {
		if _, err := dev.WriteAt([]byte{0x42, 0x43}, off+0x34); err != nil {
			t.Fatal(err)
		}
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Mkdir("/new", time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := v.SetLabel("KEPT"); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	primary, backup := make([]byte, 512), make([]byte, 512)
	if _, err := dev.ReadAt(primary, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := dev.ReadAt(backup, l.BackupBootOffset); err != nil {
		t.Fatal(err)
	}
	if primary[0x34] != 0x42 || primary[0x35] != 0x43 {
		t.Errorf("primary boot sector bytes 0x34-0x35 are %x, want 42 43", primary[0x34:0x36])
	}
	if !bytes.Equal(primary, backup) {
		t.Errorf("primary and backup boot sectors differ at byte %d", firstDiff(primary, backup))
	}
}

// A Writer used after its Volume was closed returns ErrClosed; it used to
// panic (a send on the closed stream).
func TestWriterAfterClose(t *testing.T) {
	v := allocVolume(t)
	w, err := v.Create("/a.bin", 8<<20, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 5<<20)); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
	if err := w.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("Close after the volume's Close: %v, want ErrClosed", err)
	}
}

// Fallocate lands the data still queued before it zeroes: an aborted
// Writer's data must not reach the clusters Fallocate hands out again.
func TestFallocateFlushesQueuedData(t *testing.T) {
	v := allocVolume(t)
	w, err := v.Create("/aborted.bin", 64<<10, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(bytes.Repeat([]byte{0xAA}, 64<<10)); err != nil {
		t.Fatal(err)
	}
	start := w.f.Exts[0].Start
	w.Abort()
	v.cursor = start // make the next allocation take the aborted clusters
	res, err := v.Fallocate("/zeroed.bin", 64<<10, FallocateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Extents[0].Start != start {
		t.Fatalf("Fallocate took cluster %d, not the aborted file's %d", res.Extents[0].Start, start)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	v2, err := Open(v.Device())
	if err != nil {
		t.Fatal(err)
	}
	f, err := v2.Open("zeroed.bin")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 64<<10)
	if _, err := f.(*File).ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if i := bytes.IndexByte(got, 0xAA); i >= 0 {
		t.Fatalf("the preallocated file holds the aborted file's data from byte %d", i)
	}
}

// New records never straddle a sector boundary (a torn write could keep
// long-name slots without their short entry), and the slots a record skips
// past the end marker are marked deleted so that every reader finds it.
func TestRecordsStayInOneSector(t *testing.T) {
	v := allocVolume(t)
	if err := v.Mkdir("/d", time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	names := []string{"x", "a name of three slots.txt", "y.bin", "another long name!.dat", "a much much longer name than those.text"}
	for i := range 60 {
		name := "/d/" + names[i%len(names)] + string(rune('A'+i%26)) + string(rune('a'+i/26))
		w, err := v.Create(name, 10, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("0123456789")); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	d, err := v.loadDir(recOf(t, v, "d").Entry.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	per := int(v.layout.SectorSize) / DirEntrySize
	recs, probs := ParseDir(d.raw, v.layout.Type)
	if len(probs) != 0 {
		t.Fatalf("directory problems: %+v", probs)
	}
	if len(recs) != 62 {
		t.Fatalf("%d records, want 60 files and . and ..", len(recs))
	}
	for _, r := range recs {
		if r.Slot/per != (r.Slot+r.Slots-1)/per {
			t.Errorf("%q in slots %d-%d straddles a sector boundary", r.Name, r.Slot, r.Slot+r.Slots-1)
		}
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
}

// The FAT of a large volume lives outside the Go heap until Close, not
// until the collector finds the Volume unreachable: a Table the caller
// still holds stays readable (it used to be unmapped under it, SIGSEGV).
// The risky part runs in a child process, so that a fault fails the test
// instead of killing the test binary.
func TestTableValidUntilClose(t *testing.T) {
	if os.Getenv("FTOOLS_TEST_TABLE_CHILD") != "" {
		tableChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestTableValidUntilClose$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FTOOLS_TEST_TABLE_CHILD="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child using the Table after dropping its Volume failed: %v\n%s", err, out)
	}
}

func tableChild(t *testing.T) {
	img := filepath.Join(os.Getenv("FTOOLS_TEST_TABLE_CHILD"), "big.img")
	if err := fio.CreateImage(img, 1200<<20); err != nil {
		t.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{Write: true, Buffered: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if _, _, err := Format(dev, FormatParams{Type: FAT32, SectorsPerCluster: 1}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	tab := func() Table {
		v, err := Open(dev)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(v.Table().Bytes())) < bigThreshold {
			t.Fatalf("FAT of %d bytes is not mapped outside the heap", len(v.Table().Bytes()))
		}
		return v.Table() // the Volume becomes unreachable here
	}()
	for range 5 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	sum := 0
	for _, b := range tab.Bytes() {
		sum += int(b)
	}
	if tab.Get(2) == 0 || sum == 0 {
		t.Fatal("the FAT reads as empty")
	}
	// Close gives the memory back and says so.
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if v.Table() != nil {
		t.Fatal("Table after Close is not nil")
	}
}

// A directory made in this commit is written whole, and a record that took
// the slots an earlier record skipped (marked deleted to reach past the
// end marker) keeps them: the skip's deleted marks are not written over it
// afterwards. (fcp -r lost a subfolder this way: the folder's record went
// into the slots a long name had skipped, and its clusters were lost.)
func TestNewDirKeepsRecordInSkippedSlots(t *testing.T) {
	v := allocVolume(t)
	dev := v.dev
	if err := v.Mkdir("/d", time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	// ".", "..", three records of four slots: slots 0-13. The fourth long
	// name does not fit in slots 14-15 and skips them; the folder's
	// record of two slots takes them.
	for i := range 4 {
		w, err := v.Create(fmt.Sprintf("/d/file with a long name %02d.bin", i), 1, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte{1}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Mkdir("/d/sub folder", time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if r := recOf(t, v, "d/sub folder"); r.Slot != 14 {
		t.Fatalf("set-up: the folder's record is in slot %d, want 14 (the skipped slots)", r.Slot)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := v.Stat("d/sub folder"); err != nil {
		t.Fatalf("after Close: %v", err)
	}
}
