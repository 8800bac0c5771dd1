package fsutil

import (
	"fmt"

	fio "github.com/ftools/ftools/pkg/io"
)

// ReadBytes reads n bytes at off, refusing a range past the device's end
// with a sentence that says so.
func ReadBytes(dev *fio.Device, off, n int64) ([]byte, error) {
	if off < 0 || off+n > dev.Size() {
		return nil, fmt.Errorf("byte %d lies past the end of the device (%d bytes)", off+n, dev.Size())
	}
	b := make([]byte, n)
	if _, err := dev.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// FATsFit is the part of judging a boot sector against the device (when
// it and its backup disagree) that FAT and exFAT share: the volume it
// describes, total bytes, fits the device, and each of its fats FAT
// copies (the i-th at off(i)) begins as its first entries should. head
// gets a copy's first n bytes and says what they should hold, with what
// they do ("FAT entry 0 for media byte 0xf8 (it holds ...)"), or "" when
// they are right.
func FATsFit(dev *fio.Device, total int64, fats int, off func(i int) int64, n int64, head func(b []byte) string) error {
	if total > dev.Size() {
		return fmt.Errorf("the volume it describes has %d bytes, the device only %d", total, dev.Size())
	}
	for i := range fats {
		o := off(i)
		b, err := ReadBytes(dev, o, n)
		if err != nil {
			return fmt.Errorf("FAT %d would begin at byte %d: %v", i+1, o, err)
		}
		if want := head(b); want != "" {
			return fmt.Errorf("FAT %d would begin at byte %d, which does not hold %s", i+1, o, want)
		}
	}
	return nil
}
