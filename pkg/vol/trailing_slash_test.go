package vol

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
)

// A name ending in "/" names a directory: Create and Fallocate refuse it
// on both file systems (EISDIR, as open(2) with O_CREAT does), and nothing
// is made; an existing file so named is refused as not a directory.
func TestCreateTrailingSlash(t *testing.T) {
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			if w, err := v.Create("x/", 0, stamp); !errors.Is(err, syscall.EISDIR) {
				if w != nil {
					w.Close()
				}
				t.Errorf("Create(\"x/\"): %v, want EISDIR", err)
			}
			if _, err := v.Fallocate("y/", 4096, FallocateOptions{}); !errors.Is(err, syscall.EISDIR) {
				t.Errorf("Fallocate(\"y/\"): %v, want EISDIR", err)
			}
			// An existing file so named is not a directory.
			write(t, v, "f", []byte("kept"))
			if _, err := v.Create("f/", 0, stamp); !errors.Is(err, syscall.ENOTDIR) {
				t.Errorf("Create(\"f/\") of a file: %v, want ENOTDIR", err)
			}
			for _, n := range []string{"x", "y"} {
				if _, err := v.Stat(n); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s after the refusals: %v, want it absent", n, err)
				}
			}
		})
	}
}
