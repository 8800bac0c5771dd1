package vol

import (
	"errors"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// Format makes either file system on the device's whole size by default,
// and the result opens as what it says it made; impossible parameters
// and options naming neither or both file systems write nothing.
func TestFormat(t *testing.T) {
	for _, c := range []struct {
		want string
		o    FormatOptions
	}{
		{"FAT16", FormatOptions{FAT: &FATParams{Type: 16}}},
		{"FAT32", FormatOptions{FAT: &FATParams{Type: 32, AllowSmallFAT32: true}}},
		{"exFAT", FormatOptions{ExFAT: &ExFATParams{Label: "X"}}},
	} {
		dev := fio.NewMemDevice(64<<20, 512)
		c.o.Now = stamp
		f, err := Format(dev, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.want, err)
		}
		if f.Type != c.want || f.Size <= 0 || f.Size > 64<<20 || (f.FATLayout == nil) == (f.ExFATLayout == nil) {
			t.Fatalf("%s: made %+v", c.want, f)
		}
		v, err := Open(dev)
		if err != nil || v.Type() != c.want {
			t.Fatalf("%s: Open: %v, %v", c.want, v, err)
		}
	}
	for _, o := range []FormatOptions{{}, {FAT: &FATParams{}, ExFAT: &ExFATParams{}}} {
		if _, err := Format(fio.NewMemDevice(1<<20, 512), o); !errors.Is(err, ErrFormatOptions) {
			t.Errorf("Format(%+v): %v, want ErrFormatOptions", o, err)
		}
	}
	dev := fio.NewMemDevice(64<<20, 512)
	if _, err := Format(dev, FormatOptions{FAT: &FATParams{ClusterSize: 3000}}); err == nil {
		t.Fatal("a 3000-byte cluster: no error")
	}
	b := make([]byte, 512)
	if _, err := dev.ReadAt(b, 0); err != nil || string(b) != string(make([]byte, 512)) {
		t.Fatalf("an impossible format wrote: %v", err)
	}
}
