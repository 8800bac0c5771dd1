package vol

import (
	"context"
	"errors"
	"time"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// FATParams and ExFATParams are each file system's own format parameters
// (pkg/fat's and pkg/exfat's FormatParams): size, sector and cluster
// size, label, serial number, and what only one of them has.
type (
	FATParams   = fat.FormatParams
	ExFATParams = exfat.FormatParams
)

// FormatOptions say what Format makes. Give FAT or ExFAT: the file
// system and its parameters. A Size or SectorSize of 0 is the device's.
type FormatOptions struct {
	FAT   *FATParams
	ExFAT *ExFATParams
	// Now stamps the volume (and seeds a serial number left 0);
	// the zero value is time.Now.
	Now time.Time
	// KeepSignatures leaves other file systems' and partition tables'
	// signatures (as blkid finds them) inside the volume's range. By
	// default Format clears them, and only them, first, and makes that
	// durable before it zeroes anything (see Formatted.Wiped).
	KeepSignatures bool
	// Discard discards the volume's range once the old signatures are
	// cleared and flushed, before the format writes: a block device gets
	// BLKDISCARD (BLKSECDISCARD with SecureErase), an image file has the
	// range punched out so that it stays sparse. A device that cannot
	// discard is no error (Formatted.Discard says so). Off by default.
	Discard, SecureErase bool
	// Context, if not nil, cancels the format between its phases (see
	// Format); nil: context.Background.
	Context context.Context
}

// Formatted is what Format made.
type Formatted struct {
	Type  string          // "FAT12", "FAT16", "FAT32" or "exFAT"
	Size  int64           // the volume's bytes
	Wiped []fio.Signature // the signatures cleared first
	// Discard is what the discard did; nil when none was asked for.
	Discard *fio.DiscardResult

	// The boot sector and layout of the file system made (the other
	// pair is nil).
	FATBoot     *fat.BootSector
	FATLayout   *fat.Layout
	ExFATBoot   *exfat.BootSector
	ExFATLayout *exfat.Layout
}

// ErrFormatOptions: FormatOptions gave neither or both file systems.
var ErrFormatOptions = errors.New("vol: Format: give FormatOptions.FAT or FormatOptions.ExFAT")

// Format makes a file system on dev: it plans the volume first (so that
// impossible parameters write nothing), keeps dev to the volume's range,
// clears the old signatures there (unless KeepSignatures), then formats.
// On an error the result says what was cleared (Wiped) before it.
//
// Cancelled (o.Context), Format returns an error wrapping the context's.
// It looks at the context before its first write (then nothing is
// written), once the old signatures are cleared and that is durable, and
// after the discard: a format stopped there leaves a volume whose old
// signatures are gone and no new one written, so that it claims to be no
// file system at all (not the old one over zeroed or discarded bytes;
// with KeepSignatures the old ones stay, as a cut there would leave
// them).
// The file system's own format (zeroing its metadata area, then writing
// the new boot sector last) runs to its end once begun: one zeroing call
// where the device can zero, and a few large writes.
func Format(dev *fio.Device, o FormatOptions) (*Formatted, error) {
	if (o.FAT == nil) == (o.ExFAT == nil) {
		return nil, ErrFormatOptions
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	f := &Formatted{}
	var err error
	if o.ExFAT != nil {
		p := *o.ExFAT
		deviceDefaults(dev, &p.Size, &p.SectorSize)
		f.Wiped, err = planWipeFormat(dev, p.Size, o, &f.Discard,
			func() error { _, _, err := exfat.Plan(p); return err },
			func() (err error) { f.ExFATBoot, f.ExFATLayout, err = exfat.Format(dev, p, now); return err })
		if err != nil {
			return f, err
		}
		f.Type, f.Size = "exFAT", f.ExFATLayout.TotalSize
		return f, nil
	}
	// FAT formats with the parameters as given (pkg/fat fills in the
	// device's size and sector size itself); the plan needs them now.
	p := *o.FAT
	pp := p
	deviceDefaults(dev, &pp.Size, &pp.SectorSize)
	f.Wiped, err = planWipeFormat(dev, pp.Size, o, &f.Discard,
		func() error { _, _, err := fat.Plan(pp); return err },
		func() (err error) { f.FATBoot, f.FATLayout, err = fat.Format(dev, p, now); return err })
	if err != nil {
		return f, err
	}
	f.Type, f.Size = f.FATLayout.Type.String(), f.FATLayout.TotalSize
	return f, nil
}

// deviceDefaults gives a size or sector size of 0 the device's.
func deviceDefaults(dev *fio.Device, size *int64, sector *int) {
	if *size == 0 {
		*size = dev.Size()
	}
	if *sector == 0 {
		*sector = dev.SectorSize()
	}
}

// planWipeFormat keeps the order of a format on either file system: plan
// (nothing is written when the parameters are impossible), clear the
// volume's range of size bytes (and discard it when o asks), format.
func planWipeFormat(dev *fio.Device, size int64, o FormatOptions, disc **fio.DiscardResult, plan, format func() error) ([]fio.Signature, error) {
	if err := plan(); err != nil {
		return nil, err
	}
	if err := fsutil.Cancelled(o.Context); err != nil {
		return nil, err
	}
	wiped, err := clearRange(dev, size, o.KeepSignatures)
	if err != nil {
		return nil, err
	}
	if err := fsutil.Cancelled(o.Context); err != nil {
		return wiped, err
	}
	if o.Discard {
		// DiscardAll flushes what clearRange wrote first, whatever the
		// sync policy: a cut must not leave an old boot sector over
		// discarded data.
		res, err := fio.DiscardAll(dev, o.SecureErase)
		if err != nil {
			return wiped, err
		}
		*disc = &res
		if err := fsutil.Cancelled(o.Context); err != nil {
			return wiped, err
		}
	}
	return wiped, format()
}

// clearRange keeps dev to the size bytes the new volume takes and clears
// the old signatures there, and nothing outside it. What it cleared is
// made durable (a barrier) before the format zeroes anything: while an old
// boot sector survives, zeros landing on the old volume's data would leave
// it reading as valid with its files' bytes gone.
func clearRange(dev *fio.Device, size int64, keep bool) ([]fio.Signature, error) {
	if size < dev.Size() {
		if err := dev.Limit(size); err != nil {
			return nil, err
		}
	}
	if keep {
		return nil, nil
	}
	wiped, err := fio.WipeSignatures(dev)
	if err == nil && len(wiped) > 0 {
		err = dev.Barrier()
	}
	return wiped, err
}

// AdoptDirty makes v's session the owner of a dirty flag it found set,
// as on a volume Format made with FATParams.Dirty or ExFATParams.Dirty:
// Close then clears it once everything is durable. Call it right after
// Open, before any change.
func AdoptDirty(v Volume) {
	if f := AsFAT(v); f != nil {
		f.AdoptDirty()
	} else if x := AsExFAT(v); x != nil {
		x.AdoptDirty()
	}
}
