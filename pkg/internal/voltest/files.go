package voltest

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// SumFile is the SHA-256 of the file at path: taken before and after a
// refused change, it shows the change wrote nothing.
func SumFile(tb testing.TB, path string) [32]byte {
	tb.Helper()
	return sha256.Sum256(ReadFile(tb, path))
}

// ReadFile is os.ReadFile, failing tb if it cannot.
func ReadFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// ReadFileAt reads n bytes at off of the file at path, failing tb if it
// cannot.
func ReadFileAt(tb testing.TB, path string, off int64, n int) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		tb.Fatal(err)
	}
	return b
}

// Sys is the codec's record (R, what FileInfo.Sys holds) of name, as stat
// (the volume's Stat) returns it.
func Sys[R any](tb testing.TB, stat func(name string) (fs.FileInfo, error), name string) R {
	tb.Helper()
	fi, err := stat(name)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Sys().(R)
}

// NeedTool returns the path of an oracle (mtools, dosfstools, exfatprogs:
// scripts/deps installs them), looking in the sbin directories too; the
// test fails when it is missing, never skips.
func NeedTool(tb testing.TB, name string) string {
	tb.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	tb.Fatalf("%s not found: run scripts/deps (it installs mtools, dosfstools and exfatprogs)", name)
	return ""
}

// ReadTreeBack walks fsys and reads each file, which must hold want[path];
// every file of want must be read, and after each one cost (what the
// volume's directory cache charges) must stay within limit.
func ReadTreeBack(tb testing.TB, fsys fs.FS, want map[string]string, cost func() int64, limit int64) {
	tb.Helper()
	got := 0
	err := fs.WalkDir(fsys, ".", func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil || string(data) != want[p] {
			return fmt.Errorf("%s: %q, %v (want %q)", p, data, err, want[p])
		}
		got++
		if c := cost(); c > limit {
			return fmt.Errorf("reading: directories charged %d", c)
		}
		return nil
	})
	if err != nil || got != len(want) {
		tb.Fatalf("%d of %d files read back: %v", got, len(want), err)
	}
}

// ImageFile writes b to a new file in a temporary directory and returns
// its path: a fresh copy of an image made once for several cases.
func ImageFile(tb testing.TB, b []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "copy.img")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}
