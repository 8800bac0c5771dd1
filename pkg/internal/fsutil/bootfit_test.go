package fsutil

import (
	"fmt"
	"strings"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// FATsFit refuses a volume larger than its device, a FAT copy that does
// not begin as it should, and one it cannot read, naming the copy and its
// byte; it passes copies that begin right.
func TestFATsFit(t *testing.T) {
	dev := fio.NewMemDevice(64<<10, 512)
	if _, err := dev.WriteAt([]byte{0xf8, 0xff}, 4096); err != nil {
		t.Fatal(err)
	}
	if _, err := dev.WriteAt([]byte{0xf8, 0xff}, 8192); err != nil {
		t.Fatal(err)
	}
	head := func(b []byte) string {
		if b[0] != 0xf8 || b[1] != 0xff {
			return fmt.Sprintf("f8 ff (it holds % x)", b)
		}
		return ""
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
		err := FATsFit(dev, tc.total, len(tc.offs), at(tc.offs...), 2, head)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && !strings.Contains(got, tc.want)) {
			t.Errorf("total %d, FATs at %v: got %v, want %q", tc.total, tc.offs, err, tc.want)
		}
	}
}
