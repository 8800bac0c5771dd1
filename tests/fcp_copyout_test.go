package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// writeCall is a write(2) or pwrite64(2) in strace's output, whole or
// resumed, with what it returned.
var writeCall = regexp.MustCompile(`(?:\bwrite|pwrite64)\(.*= (\d+)$|<\.\.\. (?:write|pwrite64) resumed>.*= (\d+)$`)

// A large file copied out of an image (FAT and exFAT) lands straight in
// the host file's pages: fcp maps the host file and the read-ahead's
// aligned O_DIRECT reads go into the map, so only what was read before the
// file was reached (a few requests of the read-ahead's buffers) is written
// with write(2). Checked with strace: the bytes written, and the shared map.
func TestFcpCopyOutInPlace(t *testing.T) {
	need(t, "strace")
	for _, kind := range [][]string{{"--size", "600M"}, {"--type", "exfat", "--size", "600M"}} {
		t.Run(kind[1], func(t *testing.T) {
			img := newImage(t, kind...)
			dir := t.TempDir()
			src := filepath.Join(dir, "big.bin")
			want := writeFile(t, src, 64<<20+1234, 7)
			ok(t, "fcp", "-i", img, src, "::/")
			out := filepath.Join(dir, "out")
			mustMkdir(t, out)
			trace := filepath.Join(dir, "trace")
			ok(t, "strace", "-f", "-qq", "-e", "trace=write,pwrite64,mmap", "-e", "signal=none", "-o", trace,
				"fcp", "--sync", "none", "-i", img, "::/big.bin", out)
			if got, _ := os.ReadFile(filepath.Join(out, "big.bin")); !bytes.Equal(got, want) {
				t.Fatal("big.bin came out different")
			}
			text, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			written, shared := 0, false
			for _, line := range strings.Split(string(text), "\n") {
				if m := writeCall.FindStringSubmatch(line); m != nil {
					n, _ := strconv.Atoi(m[1] + m[2])
					written += n
				}
				shared = shared || strings.Contains(line, "MAP_SHARED")
			}
			t.Logf("64 MiB out: %d bytes written with write(2), the rest read in place", written)
			if !shared {
				t.Error("the host file was not mapped (no MAP_SHARED mmap)")
			}
			// The read-ahead's 8 buffers of 4 MiB may have been read
			// before the file was mapped; the rest goes in place.
			if written > 36<<20 {
				t.Errorf("%d bytes of 64 MiB written with write(2), want at most 36 MiB", written)
			}
		})
	}
}
