package fsutil

import (
	"fmt"
	"strings"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// f8ff is a FAT head check for FATsFit: the copy begins f8 ff.
func f8ff(b []byte) string {
	if b[0] != 0xf8 || b[1] != 0xff {
		return fmt.Sprintf("f8 ff (it holds % x)", b)
	}
	return ""
}

// FATsFit refuses a volume larger than its device, a FAT copy that does
// not begin as it should, and one it cannot read, naming the copy and its
// byte; it passes copies that begin right.
func TestFATsFit(t *testing.T) {
	// A 64 KiB device whose FAT copies at 4096 and 8192 begin f8 ff.
	dev := fio.NewMemDevice(64<<10, 512)
	for _, off := range []int64{4096, 8192} {
		if _, err := dev.WriteAt([]byte{0xf8, 0xff}, off); err != nil {
			t.Fatal(err)
		}
	}
	at := func(offs ...int64) func(int) int64 { return func(i int) int64 { return offs[i] } }
	for _, tc := range []struct {
		total int64
		offs  []int64
		want  string
	}{
		{64 << 10, []int64{4096, 8192}, ""},
		{64<<10 + 1, []int64{4096}, "the volume it describes has 65537 bytes, the device only 65536"},
		{64 << 10, []int64{4096, 12288}, "FAT 2 would begin at byte 12288, which does not hold f8 ff (it holds 00 00)"},
		{64 << 10, []int64{64<<10 - 1}, "FAT 1 would begin at byte 65535: byte 65537 lies past the end of the device (65536 bytes)"},
	} {
		err := FATsFit(dev, tc.total, len(tc.offs), at(tc.offs...), 2, f8ff)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && !strings.Contains(got, tc.want)) {
			t.Errorf("total %d, FATs at %v: got %v, want %q", tc.total, tc.offs, err, tc.want)
		}
	}
}
