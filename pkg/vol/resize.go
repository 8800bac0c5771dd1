package vol

import (
	"io"
	"runtime"
	"sync"
	"weak"

	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/fsutil"
	"github.com/ftools/ftools/pkg/internal/resize"
	fio "github.com/ftools/ftools/pkg/io"
)

// ResizeOptions say how Resize resizes: the new size in bytes, a dry run,
// Force for a resize that is not crash-safe, a context and a progress
// callback (see the fields).
type ResizeOptions = resize.Options

// ResizePlan is what Resize does, or with DryRun would do: sizes, cluster
// counts, what moves, the FAT's and bitmap's sizes, and the steps in words.
type ResizePlan = resize.Plan

// TooSmallError is Resize's refusal to shrink below what the data needs;
// it matches ErrTooSmall.
type TooSmallError = resize.TooSmallError

// TypeLimitError is Resize's refusal of a size whose cluster count the
// FAT type cannot have; it matches ErrTypeLimit and names the nearest size
// the layout holds and a type and cluster size a new file system of that
// size could have.
type TypeLimitError = resize.TypeLimitError

// FATFullError is the refusal to grow past what the FAT can count (FAT's
// data area or exFAT's cluster heap would move); it matches ErrFATFull
// and names the largest size the FAT can count.
type FATFullError = resize.FATFullError

// Resize's refusals, for errors.Is. A refusal writes nothing.
var (
	ErrTooSmall  = resize.ErrTooSmall  // the data does not fit in the new size
	ErrTypeLimit = resize.ErrTypeLimit // the new size crosses the type's cluster-count limits
	ErrUnsafe    = resize.ErrUnsafe    // the resize is not crash-safe and Force is not set
	ErrFATFull   = resize.ErrFATFull   // growing needs a larger FAT (the data area or cluster heap would move)
)

// Resize grows or shrinks the FAT12/16/32 or exFAT volume that starts at
// dev's offset 0 to o.Size bytes, in place. The volume may grow to the
// end of dev's window (its partition, or the image or device); growing an
// image file past its end, or moving a partition's end, is the caller's
// to do first, and shortening them after a shrink. The volume is checked
// first, as fverify checks it, and refused (DamagedError) unless the check
// is clean, dirty bit included: then nothing is written. dev must be
// writable unless o.DryRun. A dry run that finds the volume clean lets
// the next Resize on the same device skip the check, if nothing has been
// written through the device in between (the device, open for writing,
// holds the image's lock, so nothing else writes it either): a caller
// that plans first, then resizes, checks once.
func Resize(dev *fio.Device, o ResizeOptions) (*ResizePlan, error) {
	if err := fsutil.Cancelled(o.Context); err != nil {
		return nil, err
	}
	ex, err := IsExFAT(dev)
	if err != nil {
		return nil, err
	}
	key := weak.Make(dev)
	w, ok := checkedDevs.LoadAndDelete(key)
	if !ok || w.(int64) != writesThrough(dev) || !dev.Writable() {
		var v interface{ Close() error }
		if ex {
			v, err = checkedExFAT(dev, o.Context)
		} else {
			v, err = checkedFAT(dev, o.Context)
		}
		if err != nil {
			return nil, resizeRefusal(err)
		}
		if err := v.Close(); err != nil {
			return nil, err
		}
	}
	var plan *ResizePlan
	if ex {
		plan, err = exfatResize(dev, o)
	} else {
		plan, err = fat.Resize(dev, o)
	}
	if o.DryRun {
		// Checked clean, and a dry run writes nothing, refusal or not.
		if _, had := checkedDevs.Swap(key, writesThrough(dev)); !had {
			runtime.AddCleanup(dev, func(k weak.Pointer[fio.Device]) { checkedDevs.Delete(k) }, key)
		}
	}
	return plan, err
}

// checkedDevs holds the devices a dry run of Resize found clean, with
// writesThrough as it was then.
var checkedDevs sync.Map // weak.Pointer[fio.Device] -> int64

// writesThrough counts the requests that changed a device's bytes.
func writesThrough(dev *fio.Device) int64 {
	s := dev.Stats()
	return s.WriteRequests + s.ZeroRequests + s.DiscardRequests
}

// resizeRefusal words a damaged volume's refusal for a resize.
func resizeRefusal(err error) error {
	if de, ok := err.(*DamagedError); ok {
		de.Verb = "resized"
	}
	return err
}

// ApplyUndo writes back the bytes an undo file saved (ResizeOptions.Undo)
// to the volume on dev, which must be the window the resize ran on: after
// a cut during a resize that was not crash-safe, this puts the old volume
// back. The whole file is read and checked before anything is written
// (then read again, a piece at a time, to write it back); an
// incomplete or altered one is refused (the resize then never began its
// unsafe writes, or the file is not the one it wrote). It returns the
// number of records written back.
func ApplyUndo(dev *fio.Device, r io.ReadSeeker) (int, error) {
	n, err := resize.ApplyUndo(r, dev.Size(), func(off int64, b []byte) error {
		_, err := dev.WriteAt(b, off)
		return err
	})
	if err != nil {
		return n, err
	}
	return n, dev.Sync()
}

// ErrBadUndo says an undo file is incomplete or damaged.
var ErrBadUndo = resize.ErrBadUndo
