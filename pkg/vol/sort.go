package vol

import (
	"context"
	"errors"
	"fmt"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/fsutil"
	"github.com/ftools/ftools/pkg/internal/sortorder"
	fio "github.com/ftools/ftools/pkg/io"
)

// SortOrder says where Sort puts directories.
type SortOrder = sortorder.Order

// Where Sort puts directories (fatsort's -o d, f, a).
const (
	DirsFirst  = sortorder.OrderDirsFirst
	FilesFirst = sortorder.OrderFilesFirst
	Mixed      = sortorder.OrderMixed
)

// ParseSortOrder reads fatsort's -o letter: d, f or a.
func ParseSortOrder(s string) (SortOrder, error) { return sortorder.ParseOrder(s) }

// SortOptions tune Sort. The zero value is fatsort's default under
// LC_ALL=C.UTF-8: every directory, directories first, then names byte by
// byte in UTF-8 (code point order, so upper case before lower case).
type SortOptions struct {
	Order      SortOrder
	Natural    bool // runs of digits compare as numbers, as fatsort -n
	Reverse    bool // names in reverse order (directories still first), as fatsort -r
	IgnoreCase bool // ASCII letters compare as lower case, as fatsort -c
	// Only and Tree choose directories as fatsort's -d and -D do: those in
	// Only alone, those in Tree with every directory below them. Both
	// empty: every directory. Each must exist and be a directory.
	Only, Tree []string
	// Visit, if set, is told each directory looked at: its path, its
	// members (".", ".." and the label not counted), and whether it was
	// rewritten (false: it was in order already).
	Visit func(path string, members int, changed bool)
	// Context, if not nil, cancels the sort between two directories (each
	// one is in its old order or its new); Sort returns what it did so far
	// and an error wrapping the context's.
	Context context.Context
}

// SortResult is what Sort did.
type SortResult struct {
	Type    string `json:"fat_type"`
	Dirs    int    `json:"directories"` // directories looked at
	Changed int    `json:"changed"`     // of those, the ones rewritten
	Members int    `json:"members"`     // their members
}

// Sort orders the directory entries of the FAT or exFAT volume on dev as
// fatsort does, for players, cameras and boot loaders that go by the
// order on disk rather than by name. Each file keeps its long name (FAT's
// long-name slots, exFAT's entry set); ".", ".." and the volume label stay
// first; deleted slots are dropped. The volume is checked first, as
// fverify checks it, and refused (DamagedError) unless clean: then nothing
// is written. For the write order and what a cut may leave, see
// fat.Volume.Sort and exfat.Volume.Sort.
func Sort(dev *fio.Device, o SortOptions) (*SortResult, error) {
	if err := fsutil.Cancelled(o.Context); err != nil {
		return nil, err
	}
	ex, err := IsExFAT(dev)
	if err != nil {
		return nil, err
	}
	order := sortorder.Options{Order: o.Order, Natural: o.Natural, Reverse: o.Reverse, IgnoreCase: o.IgnoreCase}
	var sel sortorder.Selection
	for _, p := range o.Only {
		sel.Only = append(sel.Only, fsutil.CleanPath(p))
	}
	for _, p := range o.Tree {
		sel.Tree = append(sel.Tree, fsutil.CleanPath(p))
	}
	if ex {
		return sortExFAT(dev, o, order, sel)
	}
	return sortFAT(dev, o, order, sel)
}

func sortFAT(dev *fio.Device, o SortOptions, order sortorder.Options, sel sortorder.Selection) (*SortResult, error) {
	cv, err := checkedFAT(dev, o.Context)
	if err != nil {
		return nil, sortRefusal(err)
	}
	cv.Close()
	v, err := fat.Open(dev)
	if err != nil {
		return nil, err
	}
	r, err := v.Sort(sortorder.Job{Order: order, Select: sel, Visit: o.Visit, Context: o.Context})
	if cerr := v.Close(); err == nil {
		err = cerr
	}
	res := &SortResult{Type: v.Layout().Type.String()}
	if r != nil {
		res.Dirs, res.Changed, res.Members = r.Dirs, r.Changed, r.Members
	}
	return res, err
}

func sortExFAT(dev *fio.Device, o SortOptions, order sortorder.Options, sel sortorder.Selection) (*SortResult, error) {
	cv, err := checkedExFAT(dev, o.Context)
	if err != nil {
		return nil, sortRefusal(err)
	}
	cv.Close()
	v, err := exfat.Open(dev)
	if err != nil {
		return nil, err
	}
	r, err := v.Sort(sortorder.Job{Order: order, Select: sel, Visit: o.Visit, Context: o.Context})
	if cerr := v.Close(); err == nil {
		err = cerr
	}
	res := &SortResult{Type: "exFAT"}
	if r != nil {
		res.Dirs, res.Changed, res.Members = r.Dirs, r.Changed, r.Members
	}
	return res, err
}

// sortRefusal words the check's refusal for Sort.
func sortRefusal(err error) error {
	var de *DamagedError
	if errors.As(err, &de) {
		de.Verb = "sorted"
		return de
	}
	return fmt.Errorf("checking the volume: %w", err)
}
