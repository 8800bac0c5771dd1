package vol

import (
	"context"
	"errors"
	"fmt"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// TrimOptions tune Trim.
type TrimOptions struct {
	// Minimum is the smallest run of free clusters worth discarding, in
	// bytes (fstrim's --minimum); shorter runs are left. 0: every run.
	Minimum int64
	// DryRun finds the runs and discards nothing.
	DryRun bool
	// Visit, if set, is told each run discarded (or, with DryRun, that
	// would be): its first cluster, its clusters, and its byte offset on
	// the volume and length.
	Visit func(start, n uint32, off, size int64)
	// Context, if not nil, cancels the trim: during its check (nothing
	// discarded) or between two discards (any subset of them is safe);
	// Trim then returns what it did so far and an error wrapping the
	// context's. nil: context.Background.
	Context context.Context
}

// TrimResult is what Trim found and did.
type TrimResult struct {
	Type         string `json:"fat_type"`
	ClusterSize  int64  `json:"cluster_size"`
	FreeClusters int64  `json:"free_clusters"` // in every run found, short ones included
	Runs         int    `json:"runs"`          // runs discarded (with DryRun: that would be)
	Bytes        int64  `json:"bytes"`         // bytes those runs hold
	Skipped      int    `json:"skipped_runs"`  // runs shorter than Minimum, left alone
	SkippedBytes int64  `json:"skipped_bytes"`
	// Unsupported: the device or file system cannot discard; nothing
	// was discarded (Runs and Bytes say what would have been).
	Unsupported bool `json:"unsupported"`
	Punched     bool `json:"punched"` // an image file: the runs were punched out of it
	DryRun      bool `json:"dry_run"`
}

// ErrDamaged says Trim, Sort or Resize refused a volume its check found
// damaged.
var ErrDamaged = errors.New("vol: the volume is damaged")

// DamagedError is the refusal of a damaged volume by Trim, Sort or
// Resize: how many problems the check (fverify's) found, and the first.
type DamagedError struct {
	Problems int
	First    string
	Verb     string // what was not done to it: "discarded" (Trim, and when empty), "sorted" (Sort), "resized" (Resize)
}

func (e *DamagedError) Error() string {
	verb := e.Verb
	if verb == "" {
		verb = "discarded"
	}
	what := fmt.Sprintf("%d problems; the first", e.Problems)
	if e.Problems == 1 {
		what = "1 problem"
	}
	return fmt.Sprintf("the volume is damaged (%s: %s): nothing was %s; run fverify, and fverify --repair to repair it", what, e.First, verb)
}

func (e *DamagedError) Unwrap() error { return ErrDamaged }

// Trim discards every run of free clusters of the FAT or exFAT volume on
// dev (fstrim for a volume that is not mounted): BLKDISCARD on a block
// device, a punched hole in an image file (see fio.Device.Discard). A
// free cluster is one every FAT copy marks free (FAT) or the allocation
// bitmap marks free and no chain reaches (exFAT). The volume is checked
// first, as fverify checks it, and refused (DamagedError) unless the
// check is clean: then nothing is written. Discarding free clusters
// changes no structure, so any subset of the discards leaves the volume
// as it was; dev must be writable unless o.DryRun. A device that cannot
// discard is no error: the result says so.
func Trim(dev *fio.Device, o TrimOptions) (*TrimResult, error) {
	if err := fsutil.Cancelled(o.Context); err != nil {
		return nil, err
	}
	ex, err := IsExFAT(dev)
	if err != nil {
		return nil, err
	}
	var (
		res     = &TrimResult{DryRun: o.DryRun}
		offset  func(c uint32) int64
		each    func(fn func(start, n uint32) error) error
		closeFn func() error
	)
	if ex {
		v, err := checkedExFAT(dev, o.Context)
		if err != nil {
			return nil, err
		}
		defer v.Close()
		res.Type, res.ClusterSize = "exFAT", v.Layout().ClusterSize
		offset = func(c uint32) int64 { return v.Layout().ClusterOffset(exfat.Cluster(c)) }
		each = func(fn func(start, n uint32) error) error {
			return v.FreeRuns(func(e exfat.Extent) error { return fn(uint32(e.Start), e.Len) })
		}
		closeFn = v.Close
	} else {
		v, err := checkedFAT(dev, o.Context)
		if err != nil {
			return nil, err
		}
		defer v.Close()
		res.Type, res.ClusterSize = v.Layout().Type.String(), v.Layout().ClusterSize
		offset = func(c uint32) int64 { return v.Layout().ClusterOffset(fat.Cluster(c)) }
		each = func(fn func(start, n uint32) error) error {
			return v.FreeRuns(func(e fat.Extent) error { return fn(uint32(e.Start), e.Len) })
		}
		closeFn = v.Close
	}
	err = each(func(start, n uint32) error {
		if err := fsutil.Cancelled(o.Context); err != nil {
			return err
		}
		bytes := int64(n) * res.ClusterSize
		res.FreeClusters += int64(n)
		if bytes < o.Minimum {
			res.Skipped++
			res.SkippedBytes += bytes
			return nil
		}
		res.Runs++
		res.Bytes += bytes
		if o.Visit != nil {
			o.Visit(start, n, offset(start), bytes)
		}
		if o.DryRun || res.Unsupported {
			return nil
		}
		_, err := dev.Discard(offset(start), bytes, false)
		if errors.Is(err, fio.ErrDiscardUnsupported) {
			res.Unsupported = true
			return nil
		}
		return err
	})
	if err != nil {
		return res, err
	}
	res.Punched = !o.DryRun && !res.Unsupported && res.Runs > 0 && !dev.IsBlockDevice()
	return res, closeFn()
}

// damaged is the refusal of a volume whose check found n problems.
func damaged[P fmt.Stringer](n int, ps []P) error {
	first := "too many to list"
	if len(ps) > 0 {
		first = ps[0].String()
	}
	return &DamagedError{Problems: n, First: first}
}

// checkedFAT opens the FAT volume on dev and checks it as fverify does:
// a volume the check does not find clean is refused (DamagedError) and
// closed. The caller closes the volume returned.
func checkedFAT(dev *fio.Device, ctx context.Context) (*fat.Volume, error) {
	v, bootErr, err := fat.OpenForCheck(dev)
	if err != nil {
		return nil, err
	}
	return keepIfClean(v, func() error {
		rep, err := fat.Check(v, fat.CheckOptions{BootError: bootErr, Context: ctx})
		if err == nil && !rep.Clean() {
			err = damaged(len(rep.Problems)+rep.Omitted, rep.Problems)
		}
		return err
	})
}

// checkedExFAT is checkedFAT for exFAT.
func checkedExFAT(dev *fio.Device, ctx context.Context) (*exfat.Volume, error) {
	v, _, err := exfat.OpenForCheck(dev)
	if err != nil {
		return nil, err
	}
	return keepIfClean(v, func() error {
		rep, err := exfat.Check(v, exfat.CheckOptions{Context: ctx})
		if err == nil && !rep.Clean() {
			err = damaged(len(rep.Problems)+rep.Omitted, rep.Problems)
		}
		return err
	})
}

// keepIfClean returns v if check passes, and otherwise closes it.
func keepIfClean[V interface{ Close() error }](v V, check func() error) (V, error) {
	if err := check(); err != nil {
		v.Close()
		var none V
		return none, err
	}
	return v, nil
}
