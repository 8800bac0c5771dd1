package vol

import (
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
)

// A serial number left 0 is made from the clock on both file systems, as
// mkfs.fat and mkfs.exfat make theirs: two volumes made apart differ, and
// none reads 0000-0000.
func TestFormatMakesSerial(t *testing.T) {
	for _, typ := range []string{"FAT32", "exFAT"} {
		seen := map[uint32]bool{}
		for i := range 2 {
			dev := fio.NewMemDevice(64<<20, 512)
			o := FormatOptions{FAT: &FATParams{AllowSmallFAT32: true}, Now: stamp.Add(time.Duration(i) * 1500 * time.Millisecond)}
			if typ == "exFAT" {
				o = FormatOptions{ExFAT: &ExFATParams{}, Now: o.Now}
			}
			if _, err := Format(dev, o); err != nil {
				t.Fatal(err)
			}
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			s := v.Serial()
			v.Close()
			if s == 0 || seen[s] {
				t.Errorf("%s: serial %08x (seen before: %v)", typ, s, seen[s])
			}
			seen[s] = true
		}
	}
}
