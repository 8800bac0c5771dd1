package fsutil

import (
	"strings"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// FitDevice takes the device's sector size and size for 0 and refuses a
// smaller sector size or a larger size, saying which.
func TestFitDevice(t *testing.T) {
	dev := fio.NewMemDevice(1<<20, 4096)
	for _, c := range []struct {
		ss       int
		size     int64
		wantSS   int
		wantSize int64
		err      string
	}{
		{0, 0, 4096, 1 << 20, ""},
		{8192, 4096, 8192, 4096, ""},
		{4096, 1 << 20, 4096, 1 << 20, ""},
		{512, 0, 0, 0, "sector size 512 is smaller than the device's logical sector size 4096"},
		{0, 1<<20 + 1, 0, 0, "1048577 bytes asked but"},
	} {
		ss, size := c.ss, c.size
		err := FitDevice(dev, &ss, &size)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("FitDevice(%d, %d): %v, want %q", c.ss, c.size, err, c.err)
			}
			continue
		}
		if err != nil || ss != c.wantSS || size != c.wantSize {
			t.Errorf("FitDevice(%d, %d) = %d, %d, %v; want %d, %d", c.ss, c.size, ss, size, err, c.wantSS, c.wantSize)
		}
	}
}
