package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkVerify checks a 2 GiB FAT32 volume holding 4,000 small files and
// a 300 MiB file with fverify and with fsck.fat -n, and reports the time of
// each per run (fverify-ns/op, fsck-ns/op). The target is fverify at most
// as slow as fsck.fat; this is measured here, not asserted.
func BenchmarkVerify(b *testing.B) {
	for _, tool := range []string{"mkfs.fat", "fsck.fat"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Fatalf("%s is missing", tool)
		}
	}
	dir := b.TempDir()
	img := filepath.Join(dir, "bench.img")
	tree := filepath.Join(dir, "tree")
	mustRun(b, "mkfs.fat", "-C", "-F", "32", "-i", "01020304", img, "2097152")
	for d := 0; d < 20; d++ {
		sub := filepath.Join(tree, fmt.Sprintf("dir%02d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 200; f++ {
			data := make([]byte, 1000+(d*200+f)%7000)
			data[0] = byte(f)
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file number %03d.txt", f)), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	big, err := os.Create(filepath.Join(tree, "big.bin"))
	if err != nil {
		b.Fatal(err)
	}
	if err := big.Truncate(300 << 20); err != nil {
		b.Fatal(err)
	}
	big.Close()
	mustRun(b, "fcp", "-r", "-i", img, tree+"/.", "::/")
	b.ResetTimer()
	var fv, fsck time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		mustRun(b, "fverify", img)
		fv += time.Since(start)
		start = time.Now()
		mustRun(b, "fsck.fat", "-n", img)
		fsck += time.Since(start)
	}
	b.ReportMetric(float64(fv.Nanoseconds())/float64(b.N), "fverify-ns/op")
	b.ReportMetric(float64(fsck.Nanoseconds())/float64(b.N), "fsck-ns/op")
}

// mustRun runs a command that must succeed, for benchmarks (run and ok
// take a *testing.T).
func mustRun(b *testing.B, name string, args ...string) {
	b.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
