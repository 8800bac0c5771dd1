package vol

import (
	"errors"

	fio "github.com/ftools/ftools/pkg/io"
)

// exfatResize is exFAT's Resize. pkg/exfat's Resize is built on another
// branch; the merge replaces this stub with a call to exfat.Resize.
var exfatResize = func(dev *fio.Device, o ResizeOptions) (*ResizePlan, error) {
	return nil, errors.New("vol: exFAT resize is not built yet")
}
