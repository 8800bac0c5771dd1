package exfat

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// runTool runs an oracle and returns its combined output and error.
func runTool(t testing.TB, name string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(voltest.NeedTool(t, name), args...).CombinedOutput()
	return string(out), err
}

// fsckClean fails the test unless fsck.exfat -n finds nothing wrong in img.
func fsckClean(t testing.TB, img string) {
	t.Helper()
	out, err := runTool(t, "fsck.exfat", "-n", img)
	if err != nil || strings.Contains(out, "ERROR") || strings.Contains(out, "corrupted") {
		t.Fatalf("fsck.exfat -n %s: %v\n%s", img, err, out)
	}
}

// testTime is the clock every test volume uses.
var testTime = time.Date(2024, 5, 6, 7, 8, 9, 120_000_000, time.UTC)

// newImage creates a sparse image file of size bytes and returns its path.
func newImage(t testing.TB, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "exfat.img")
	if err := fio.CreateImage(p, size); err != nil {
		t.Fatal(err)
	}
	return p
}

// openDev opens an image read-write (buffered, no flushes) for a test.
func openDev(t testing.TB, path string, write bool) *fio.Device {
	t.Helper()
	d, err := fio.Open(path, fio.Options{Write: write, Buffered: true, Sync: fio.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// formatImage makes an image of size bytes holding a new volume.
func formatImage(t testing.TB, size int64, p FormatParams) string {
	t.Helper()
	img := newImage(t, size)
	d := openDev(t, img, true)
	if p.Serial == 0 {
		p.Serial = 0x1234ABCD
	}
	if _, _, err := Format(d, p, testTime); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return img
}

// dumpFree returns the free cluster count dump.exfat shows for img.
func dumpFree(t testing.TB, img string) uint32 {
	t.Helper()
	out, err := runTool(t, "dump.exfat", img)
	if err != nil {
		t.Fatalf("dump.exfat %s: %v\n%s", img, err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "Free Clusters" {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			if err != nil {
				t.Fatalf("dump.exfat: %q: %v", line, err)
			}
			return uint32(n)
		}
	}
	t.Fatalf("dump.exfat printed no free cluster count:\n%s", out)
	return 0
}

// writeChunks writes a file of size bytes made of chunk repeated (the last
// piece cut short), in len(chunk) writes.
func writeChunks(tb testing.TB, v *Volume, name string, size int64, chunk []byte) {
	tb.Helper()
	w, err := v.Create(name, size, testTime)
	if err != nil {
		tb.Fatal(err)
	}
	for written := int64(0); written < size; {
		n := min(int64(len(chunk)), size-written)
		if _, err := w.Write(chunk[:n]); err != nil {
			tb.Fatal(err)
		}
		written += n
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}
