package fat

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
)

var checkClock = time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)

// buildCheckImage formats an in-memory volume, fills it with a small tree
// and returns its bytes.
func buildCheckImage(t testing.TB, p FormatParams) []byte {
	t.Helper()
	dev, v := formatMem(t, p, checkClock)
	v.Clock = func() time.Time { return checkClock }
	for _, d := range []string{"/sub", "/sub/deeper", "/Long Directory Name"} {
		if err := v.Mkdir(d, checkClock); err != nil {
			t.Fatal(err)
		}
	}
	for i, f := range []struct {
		name string
		size int
	}{{"/a.txt", 10}, {"/sub/big.bin", 5000}, {"/sub/deeper/empty", 0}, {"/Long Directory Name/A file with a long name.dat", 1500}} {
		w, err := v.Create(f.name, int64(f.size), checkClock)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(bytes.Repeat([]byte{byte('a' + i)}, f.size)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	return memBytes(t, dev)
}

// formatMem formats a volume of p.Size bytes on an in-memory device of
// 512-byte sectors, stamped at, and opens it.
func formatMem(t testing.TB, p FormatParams, at time.Time) (*fio.Device, *Volume) {
	t.Helper()
	dev := fio.NewMemDevice(p.Size, 512)
	if _, _, err := Format(dev, p, at); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	return dev, v
}

func memBytes(t testing.TB, dev *fio.Device) []byte {
	t.Helper()
	b := make([]byte, dev.Size())
	if _, err := dev.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return b
}

func memDevice(t testing.TB, img []byte) *fio.Device {
	t.Helper()
	dev := fio.NewMemDevice(int64(len(img)), 512)
	if _, err := dev.WriteAt(img, 0); err != nil {
		t.Fatal(err)
	}
	return dev
}

// checkBytes opens and checks an image held in memory.
func checkBytes(t testing.TB, img []byte) (*Volume, *Report) {
	t.Helper()
	return checkDev(t, memDevice(t, img), CheckOptions{})
}

// checkDev opens and checks the volume on dev.
func checkDev(t testing.TB, dev *fio.Device, opts CheckOptions) (*Volume, *Report) {
	t.Helper()
	v, bootErr, err := OpenForCheck(dev)
	if err != nil {
		t.Fatal(err)
	}
	opts.BootError = bootErr
	rep, err := Check(v, opts)
	if err != nil {
		t.Fatal(err)
	}
	return v, rep
}

var checkParams = map[string]FormatParams{
	"FAT12": {Size: 1 << 20, VolumeID: 1, Label: "CHECK"},
	"FAT16": {Size: 4 << 20, Type: FAT16, ClusterSize: 512, VolumeID: 2},
	"FAT32": {Size: 2 << 20, Type: FAT32, AllowSmallFAT32: true, VolumeID: 3, Label: "CHECK32"},
}

func hasKind(rep *Report, kind string) bool {
	for _, p := range rep.Problems {
		if p.Kind == kind {
			return true
		}
	}
	return false
}

func dumpProblems(rep *Report) string {
	var b strings.Builder
	for _, p := range rep.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

func TestCheckClean(t *testing.T) {
	for name, p := range checkParams {
		t.Run(name, func(t *testing.T) {
			_, rep := checkBytes(t, buildCheckImage(t, p))
			if !rep.Clean() {
				t.Fatalf("fresh volume has problems:\n%s", dumpProblems(rep))
			}
			if rep.Files != 4 || rep.Dirs != 4 || rep.LostClusters != 0 {
				t.Fatalf("counts: %d files, %d dirs, %d lost", rep.Files, rep.Dirs, rep.LostClusters)
			}
		})
	}
}

// patchEntry overwrites FAT entry c in every copy.
func patchEntry(img []byte, l *Layout, c Cluster, val Cluster, copies ...int) {
	for _, i := range copies {
		tb, _ := NewTable(l.Type, img[l.FATCopyOffset(i):l.FATCopyOffset(i)+l.FATSize], l.Clusters)
		tb.Set(c, val)
	}
}

// fileEntry finds the short entry of the named member of the root.
func fileEntry(t *testing.T, v *Volume, name string) (int64, DirEntry) {
	t.Helper()
	d, r, err := v.lookup("find", name)
	if err != nil || r == nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d.offsetOf(int64(r.Slot+r.Slots-1) * DirEntrySize), r.Entry
}

func TestCheckDamage(t *testing.T) {
	for name, p := range checkParams {
		base := buildCheckImage(t, p)
		v0, _ := checkBytes(t, base)
		l := v0.layout
		all := []int{0, 1}
		_, big := fileEntry(t, v0, "/sub/big.bin")
		aOff, a := fileEntry(t, v0, "/a.txt")
		cases := []struct {
			kind  string
			patch func(img []byte)
		}{
			{KindFATCopies, func(img []byte) { patchEntry(img, l, l.MaxCluster(), 0x123, 1) }},
			{KindLost, func(img []byte) { patchEntry(img, l, l.MaxCluster(), 0xFFFFFFF, all...) }},
			{KindCrossLink, func(img []byte) {
				binary.LittleEndian.PutUint16(img[aOff+direntClusterLow:], uint16(big.Cluster))
			}},
			{KindSize, func(img []byte) { binary.LittleEndian.PutUint32(img[aOff+direntSize:], 100000) }},
			{KindLoop, func(img []byte) { patchEntry(img, l, big.Cluster+1, big.Cluster, all...) }},
			{KindChain, func(img []byte) { patchEntry(img, l, big.Cluster+1, 0, all...) }},
			{KindMedia, func(img []byte) { img[l.FATOffset] = 0xF0; img[l.FATOffset+l.FATSize] = 0xF0 }},
			{KindDirty, func(img []byte) {
				off := ext16 + relState
				if l.Type == FAT32 {
					off = ext32 + relState
				}
				img[off] |= 1
			}},
			{KindBadName, func(img []byte) { img[aOff] = '*' }},
		}
		_ = a
		for _, c := range cases {
			t.Run(name+"/"+c.kind, func(t *testing.T) {
				img := bytes.Clone(base)
				c.patch(img)
				_, rep := checkBytes(t, img)
				if !hasKind(rep, c.kind) {
					t.Fatalf("no %s problem:\n%s", c.kind, dumpProblems(rep))
				}
			})
		}
	}
}

func TestRepairRestoresBoot(t *testing.T) {
	img := buildCheckImage(t, checkParams["FAT32"])
	want := bytes.Clone(img[:512])
	clear(img[:512])
	img[0x41] = 0 // keep the test honest: nothing of the primary survives
	dev := memDevice(t, img)
	v, bootErr, err := OpenForCheck(dev)
	if err != nil || bootErr == nil {
		t.Fatalf("OpenForCheck: %v, boot error %v", err, bootErr)
	}
	rep, err := Check(v, CheckOptions{BootError: bootErr})
	if err != nil {
		t.Fatal(err)
	}
	if !hasKind(rep, KindBootSector) {
		t.Fatalf("no boot-sector problem:\n%s", dumpProblems(rep))
	}
	fixes, err := Repair(v, rep, RepairOptions{})
	if err != nil || len(fixes) == 0 || rep.Remaining() != 0 {
		t.Fatalf("Repair: %v %v, %d remaining:\n%s", fixes, err, rep.Remaining(), dumpProblems(rep))
	}
	if got := memBytes(t, dev)[:512]; !bytes.Equal(got, want) {
		t.Fatal("the boot sector was not restored")
	}
	if _, rep := checkBytes(t, memBytes(t, dev)); !rep.Clean() {
		t.Fatalf("after repair:\n%s", dumpProblems(rep))
	}
}

func TestRepairFATCopiesAndFSInfo(t *testing.T) {
	img := buildCheckImage(t, checkParams["FAT32"])
	v0, _ := checkBytes(t, img)
	l := v0.layout
	patchEntry(img, l, 40, 0x77, 1)
	binary.LittleEndian.PutUint32(img[l.FSInfoOffset+offFSInfoFree:], 3)
	dev := memDevice(t, img)
	v, rep := checkDev(t, dev, CheckOptions{})
	if !hasKind(rep, KindFATCopies) || !hasKind(rep, KindFSInfo) {
		t.Fatalf("problems:\n%s", dumpProblems(rep))
	}
	if _, err := Repair(v, rep, RepairOptions{}); err != nil || rep.Remaining() != 0 {
		t.Fatalf("Repair: %v; remaining:\n%s", err, dumpProblems(rep))
	}
	if _, rep := checkBytes(t, memBytes(t, dev)); !rep.Clean() {
		t.Fatalf("after repair:\n%s", dumpProblems(rep))
	}
}

func TestCompare(t *testing.T) {
	img := buildCheckImage(t, checkParams["FAT12"])
	v, _ := checkBytes(t, img)
	host := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(host, "SUB", "deeper"), 0o755))
	must(os.WriteFile(filepath.Join(host, "SUB", "big.bin"), bytes.Repeat([]byte{'b'}, 5000), 0o644))
	must(os.WriteFile(filepath.Join(host, "SUB", "deeper", "EMPTY"), nil, 0o644))
	probs, err := Compare(v, filepath.Join(host, "SUB"), "::/sub", false)
	if err != nil || len(probs) != 0 {
		t.Fatalf("identical trees: %v %v", probs, err)
	}
	b := bytes.Repeat([]byte{'b'}, 5000)
	b[4321] = 'x'
	must(os.WriteFile(filepath.Join(host, "SUB", "big.bin"), b, 0o644))
	must(os.WriteFile(filepath.Join(host, "SUB", "new.txt"), []byte("x"), 0o644))
	probs, err = Compare(v, filepath.Join(host, "SUB"), "/sub", false)
	if err != nil || len(probs) != 2 || !strings.Contains(probs[0].Message+probs[1].Message, "at byte 4321") {
		t.Fatalf("changed tree: %v %v", probs, err)
	}
}

// Open warns about a FAT32 backup boot sector that differs from the boot
// sector in any byte but the dirty bit, as Check reports it: the reserved
// bytes and the boot code, which BootSector does not model, too.
func TestOpenWarnsAsCheckComparesBackupBoot(t *testing.T) {
	base := buildCheckImage(t, checkParams["FAT32"])
	for _, tc := range []struct {
		name string
		off  int // byte of the backup boot sector changed
		bit  byte
		warn bool
	}{
		{"reserved byte 52", 52, 0x01, true},
		{"boot code", 200, 0x80, true},
		{"the dirty bit only", ext32 + relState, stateDirty, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := bytes.Clone(base)
			img[usualBackupSector*512+tc.off] ^= tc.bit
			v, err := Open(memDevice(t, img))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			warned := strings.Contains(strings.Join(v.Warnings(), "\n"), "differs from the boot sector")
			_, rep := checkBytes(t, img)
			if warned != tc.warn || hasKind(rep, KindBackupBoot) != tc.warn {
				t.Errorf("Open warns %v, Check reports backup-boot %v; want %v\n%v\n%s", warned, hasKind(rep, KindBackupBoot), tc.warn, v.Warnings(), dumpProblems(rep))
			}
		})
	}
}
