package vol

import (
	"errors"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// Resize checks the volume once for a plan and the resize after it on one
// device: a second Resize after a dry run reads less (no check), unless
// something was written through the device in between, which a fresh
// check then finds (here: the dirty bit set).
func TestResizeChecksOncePerDevice(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     FormatOptions
		dirty func(boot []byte)
	}{
		{"FAT32", FormatOptions{FAT: &FATParams{Type: 32, AllowSmallFAT32: true}}, func(b []byte) { b[0x41] |= 1 }},
		{"exFAT", FormatOptions{ExFAT: &ExFATParams{}}, func(b []byte) { b[0x6A] |= 2 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dev := fio.NewMemDevice(64<<20, 512)
			c.o.Now = stamp
			if _, err := Format(dev, c.o); err != nil {
				t.Fatal(err)
			}
			o := ResizeOptions{Size: 48 << 20, DryRun: true}
			reads := func() int64 {
				before := dev.Stats().ReadBytes
				if _, err := Resize(dev, o); err != nil {
					t.Fatal(err)
				}
				return dev.Stats().ReadBytes - before
			}
			first, second := reads(), reads()
			if second >= first {
				t.Errorf("the second dry run read %d bytes, the first %d: it checked again", second, first)
			}
			boot := make([]byte, 512)
			if _, err := dev.ReadAt(boot, 0); err != nil {
				t.Fatal(err)
			}
			c.dirty(boot)
			if _, err := dev.WriteAt(boot, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := Resize(dev, o); !errors.Is(err, ErrDamaged) {
				t.Errorf("after a write through the device: %v, want the check's refusal", err)
			}
		})
	}
}
