package vol

import (
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// A volume formatted dirty (for a writer that fills it) opens dirty; the
// session that adopts the flag clears it on Close, once its writes are
// durable; one that does not adopt it leaves it set.
func TestFormatDirtyAdopt(t *testing.T) {
	for _, c := range []struct {
		name string
		o    FormatOptions
	}{
		{"FAT16", FormatOptions{FAT: &FATParams{Type: 16, Dirty: true}}},
		{"FAT32", FormatOptions{FAT: &FATParams{Type: 32, AllowSmallFAT32: true, Dirty: true}}},
		{"exFAT", FormatOptions{ExFAT: &ExFATParams{Dirty: true}}},
	} {
		for _, adopt := range []bool{false, true} {
			dev := fio.NewMemDevice(64<<20, 512)
			c.o.Now = stamp
			if _, err := Format(dev, c.o); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			v, err := Open(dev)
			if err != nil || !v.WasDirty() {
				t.Fatalf("%s: formatted with Dirty, opens dirty %v (%v)", c.name, err == nil && v.WasDirty(), err)
			}
			if adopt {
				AdoptDirty(v)
			}
			if err := v.Mkdir("d", stamp); err != nil {
				t.Fatal(err)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			v, err = Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			if v.WasDirty() == adopt {
				t.Errorf("%s: adopted %v, dirty after Close %v", c.name, adopt, v.WasDirty())
			}
			v.Close()
		}
	}
}
