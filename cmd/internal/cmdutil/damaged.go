package cmdutil

import (
	"errors"
	"fmt"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// ExitDamaged is the exit status of a command that refused a volume its
// check found damaged (vol.ErrDamaged): fverify's status for problems.
const ExitDamaged = 4

// CloseVolumeOp closes dev after a whole-volume operation (ftrim, fsort)
// and words its outcome: err (or the close's error) prefixed by spec, and
// a damaged volume's refusal given ExitDamaged.
func CloseVolumeOp(dev *fio.Device, spec string, err error) error {
	if cerr := dev.Close(); err == nil && cerr != nil && !errors.Is(cerr, fio.ErrClosed) {
		err = cerr
	}
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%s: %w", spec, err)
	if errors.Is(err, vol.ErrDamaged) {
		err = Exit(ExitDamaged, err)
	}
	return err
}
