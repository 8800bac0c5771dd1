package tests

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// piImage makes the card: a 64 MiB FAT partition at 4 MiB and an
// ext4 partition after it, and returns the image and the ext4 range.
func piImage(t *testing.T) (img string, extStart, extSize int64) {
	t.Helper()
	need(t, "sfdisk", "mkfs.ext4", "fsck.ext4")
	img = filepath.Join(t.TempDir(), "pi.img")
	ok(t, "truncate", "-s", "256M", img)
	runIn(t, "label: dos\nstart=8192, size=131072, type=c\nstart=139264, type=83\n", "sfdisk", "-q", img)
	extStart, extSize = 139264*512, (256<<20)-139264*512
	ok(t, "mkfs.ext4", "-q", "-E", fmt.Sprintf("offset=%d", extStart), img, fmt.Sprintf("%dK", extSize/1024))
	return img, extStart, extSize
}

// runIn runs a command with stdin and fails the test if it fails.
func runIn(t *testing.T, stdin, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// rangeSum is the SHA-256 of n bytes of path from byte off.
func rangeSum(t *testing.T, path string, off, n int64) [32]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, off, n)); err != nil {
		t.Fatal(err)
	}
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return s
}

// ext4Intact checks that the ext4 partition's bytes are what they were and
// that fsck.ext4 -n still accepts it.
func ext4Intact(t *testing.T, img string, start, size int64, want [32]byte) {
	t.Helper()
	if rangeSum(t, img, start, size) != want {
		t.Fatal("the ext4 partition's bytes changed")
	}
	dev := strings.TrimSpace(ok(t, "losetup", "-o", fmt.Sprint(start), "--sizelimit", fmt.Sprint(size), "-r", "-f", "--show", img))
	defer run(t, "losetup", "-d", dev)
	if r := run(t, "fsck.ext4", "-n", dev); r.code != 0 {
		t.Fatalf("fsck.ext4 -n: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// An offset or partition format beside an ext4 partition stays inside its
// own partition, writers stop at its end, and every refusal is one line.
func TestBoundedOffsets(t *testing.T) {
	img, extStart, extSize := piImage(t)
	sum := rangeSum(t, img, extStart, extSize)
	for _, args := range [][]string{{"-F", "32", "--cluster-size", "512", img + "@@4M"}, {"--offset", "8192", img}, {"--partition", "1", img}} {
		var res mkfsResult
		jsonOut(t, &res, "fmkfs", append([]string{"--json"}, args...)...)
		if res.VolumeStart != 4<<20 || res.VolumeSize != 64<<20 {
			t.Fatalf("fmkfs %q: volume at byte %d of %d bytes, want the 64 MiB partition at 4 MiB", args, res.VolumeStart, res.VolumeSize)
		}
		fsckClean(t, img, 4<<20)
		ext4Intact(t, img, extStart, extSize, sum)
	}
	// A writer fills the partition and stops at its end.
	big := filepath.Join(t.TempDir(), "big.bin")
	writeFile(t, big, 80<<20, 3)
	if msg := fails(t, "fcp", big, img+"@@4M::/"); !strings.Contains(msg, "space") {
		t.Fatalf("fcp of 80 MiB into 64 MiB: %q", msg)
	}
	fsckClean(t, img, 4<<20)
	ext4Intact(t, img, extStart, extSize, sum)
	// Offsets where no partition starts are refused, in one line that
	// names the way out.
	for off, want := range map[string]string{"5M": "--partition 1", "1M": "--partition N"} {
		msg := fails(t, "fmkfs", img+"@@"+off)
		if !strings.Contains(msg, want) || !strings.Contains(msg, "--force") || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
			t.Errorf("fmkfs at @@%s: %q", off, msg)
		}
	}
	ext4Intact(t, img, extStart, extSize, sum)
}

// A volume smaller than its partition bounds the writers too, and fsinfo
// says so; one larger than its partition is refused for writing.
func TestWritersStayInTheVolume(t *testing.T) {
	img, extStart, extSize := piImage(t)
	sum := rangeSum(t, img, extStart, extSize)
	ok(t, "fmkfs", "--partition", "1", img, "32768") // 32 MiB of the 64 MiB partition
	tail := rangeSum(t, img, (4+32)<<20, 32<<20)
	big := filepath.Join(t.TempDir(), "big.bin")
	writeFile(t, big, 40<<20, 4)
	if msg := fails(t, "fcp", big, img+"@@4M::/"); !strings.Contains(msg, "space") {
		t.Fatalf("fcp of 40 MiB into 32 MiB: %q", msg)
	}
	if rangeSum(t, img, (4+32)<<20, 32<<20) != tail {
		t.Fatal("fcp wrote past the end of the volume, inside the rest of its partition")
	}
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", "--partition", "1", img)
	if len(fi.Warnings) != 1 || !strings.Contains(fi.Warnings[0], "before the end of its partition") {
		t.Fatalf("fsinfo warnings: %q", fi.Warnings)
	}
	ext4Intact(t, img, extStart, extSize, sum)
	// mkfs.fat ignores the table: its volume runs over the ext4 partition.
	ok(t, "mkfs.fat", "--offset", "8192", img)
	after := rangeSum(t, img, extStart, extSize)
	msg := fails(t, "fcp", big, img+"@@4M::/")
	if !strings.Contains(msg, "refusing to write") || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
		t.Fatalf("fcp into a volume larger than its partition: %q", msg)
	}
	ok(t, "fls", img+"@@4M::/") // reading still works
	if rangeSum(t, img, extStart, extSize) != after {
		t.Fatal("the refused fcp changed the ext4 partition")
	}
}

// --size makes exactly that size or says why not; BLOCK-COUNT sizes the
// file system (and a missing image file), as mkfs.fat's does.
func TestFmkfsSizes(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "big.img")
	ok(t, "truncate", "-s", "1G", img)
	msg := fails(t, "fmkfs", "--size", "16M", img)
	if !strings.Contains(msg, "does not shrink") || !strings.Contains(msg, "BLOCK-COUNT 16384") || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
		t.Fatalf("--size 16M on a 1 GiB file: %q", msg)
	}
	if fi, _ := os.Stat(img); fi.Size() != 1<<30 {
		t.Fatalf("the refused file is now %d bytes", fi.Size())
	}
	var res mkfsResult
	jsonOut(t, &res, "fmkfs", "--json", img, "16384")
	if res.VolumeSize != 16<<20 || res.FATType != "FAT16" {
		t.Fatalf("BLOCK-COUNT 16384: %s of %d bytes", res.FATType, res.VolumeSize)
	}
	fsckClean(t, img, 0)
	small := filepath.Join(dir, "small.img")
	ok(t, "truncate", "-s", "8M", small)
	ok(t, "fmkfs", "--size", "24M", small)
	if fi, _ := os.Stat(small); fi.Size() != 24<<20 {
		t.Fatalf("--size 24M on an 8 MiB file: %d bytes", fi.Size())
	}
	created := filepath.Join(dir, "new.img")
	ok(t, "fmkfs", created, "2880")
	if fi, _ := os.Stat(created); fi.Size() != 2880<<10 {
		t.Fatalf("BLOCK-COUNT 2880 on a missing file made %d bytes", fi.Size())
	}
	fsckClean(t, created, 0)
	if msg := fails(t, "fmkfs", small, "999999"); !strings.Contains(msg, "BLOCK-COUNT 999999") {
		t.Fatalf("BLOCK-COUNT larger than the file: %q", msg)
	}
}

// On a loop device with partition devices: a format beside ext4 through the
// whole disk and through the partition device leaves ext4 alone, and the
// hidden sectors of a partition device are what mkfs.fat writes.
func TestLoopPartitionDevices(t *testing.T) {
	need(t, "mkfs.fat", "minfo")
	img, extStart, extSize := piImage(t)
	sum := rangeSum(t, img, extStart, extSize)
	disk := attachP(t, img)
	ok(t, "fmkfs", "--partition", "1", disk)
	ok(t, "fmkfs", disk+"@@4M")
	ext4Intact(t, img, extStart, extSize, sum)
	part := disk + "p1"
	ok(t, "mkfs.fat", "-F", "32", part)
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", part)
	want := fi.HiddenSectors
	var res mkfsResult
	jsonOut(t, &res, "fmkfs", "--json", "-F", "32", "--cluster-size", "512", part)
	if want != 8192 || res.Hidden != want {
		t.Fatalf("hidden sectors on %s: fmkfs %d, mkfs.fat %d, want 8192", part, res.Hidden, want)
	}
	var al struct {
		Alignment struct {
			PartitionStart int64 `json:"partition_start"`
			DiskSize       int64 `json:"disk_size"`
		} `json:"alignment"`
	}
	jsonOut(t, &al, "fsinfo", "--json", part)
	if al.Alignment.PartitionStart != 4<<20 || al.Alignment.DiskSize != 256<<20 {
		t.Fatalf("fsinfo on %s: alignment from byte %d of a %d-byte card, want the whole card's", part, al.Alignment.PartitionStart, al.Alignment.DiskSize)
	}
	fsckClean(t, part, 0)
	ext4Intact(t, img, extStart, extSize, sum)
}

// attachP attaches img to a loop device with partition scanning and
// partition devices, and detaches it when the test ends.
func attachP(t *testing.T, img string) string {
	t.Helper()
	need(t, "losetup", "partx")
	dev := strings.TrimSpace(ok(t, "losetup", "-P", "--find", "--show", img))
	t.Cleanup(func() { run(t, "losetup", "-d", dev) })
	partitionDevices(t, dev)
	return dev
}

// partitionDevices makes the kernel's partition devices of dev match its
// table. Some kernels (this project's CI VMs among them) are built without
// MBR and GPT parsers, so that losetup -P and BLKRRPART find nothing:
// partx adds them through BLKPG as the table says.
func partitionDevices(t *testing.T, dev string) {
	t.Helper()
	run(t, "partx", "-u", dev)
	waitFor(t, dev+"p1")
}

// waitFor waits (up to 5 s) for udev to make a device node.
func waitFor(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", path)
}
