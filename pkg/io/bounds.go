package io

import (
	"errors"
	"fmt"
	"strings"
)

// ErrOutsidePartition is returned when a volume given by offset would be
// written where no partition of the disk's table starts.
var ErrOutsidePartition = errors.New("io: offset is not where a partition starts")

// PlaceError refuses to write a place the user did not name as a partition
// or an unpartitioned disk. Its message says what was refused; commands
// add how to ask for it (Partition is the partition to suggest, 0 for
// none). It wraps ErrOutsidePartition or ErrPartitioned.
type PlaceError struct {
	Msg       string
	Partition int
	Err       error
}

func (e *PlaceError) Error() string { return e.Msg }
func (e *PlaceError) Unwrap() error { return e.Err }

// offsetEnd is the absolute end of a window that starts at byte o.Offset of
// the whole disk with no partition named. When the disk has a partition
// table, an offset that starts a partition ends where that partition ends;
// one inside a partition ends where it ends and one in no partition ends
// where the next partition starts, and writing either is refused unless
// o.Force. Without a table the window runs to the end of the disk.
func (d *Device) offsetEnd(o Options) (int64, error) {
	t, err := d.readTable()
	if errors.Is(err, ErrNoPartition) {
		return d.rawSize, nil
	}
	if err != nil {
		return 0, err
	}
	off, next := o.Offset, d.rawSize
	refuse := o.Write && !o.Force
	for _, p := range t.Partitions {
		if p.Size <= 0 {
			continue
		}
		end := p.Start + p.Size
		switch {
		case off == p.Start:
			return end, nil
		case off > p.Start && off < end:
			if refuse {
				return 0, &PlaceError{Partition: p.Index, Err: ErrOutsidePartition,
					Msg: fmt.Sprintf("io: %s: refusing to write at offset %d, inside %s partition %d (bytes %d to %d) but not at its start",
						d.path, off, strings.ToUpper(t.Kind), p.Index, p.Start, end-1)}
			}
			return end, nil
		case p.Start > off && p.Start < next:
			next = p.Start
		}
	}
	if refuse && len(t.Partitions) > 0 {
		return 0, &PlaceError{Err: ErrOutsidePartition,
			Msg: fmt.Sprintf("io: %s: refusing to write at offset %d, in no partition of its %s table (%s)",
				d.path, off, strings.ToUpper(t.Kind), listPartitions(t))}
	}
	return next, nil
}

// listPartitions names a table's partitions and where they start.
func listPartitions(t *PartitionTable) string {
	var s []string
	for _, p := range t.Partitions {
		if p.Problem == "" {
			s = append(s, fmt.Sprintf("%d at byte %d", p.Index, p.Start))
		}
	}
	if len(s) == 0 {
		return "none usable"
	}
	return "partition " + strings.Join(s, ", ")
}

// Limit shrinks the volume window to its first n bytes, so that nothing
// past them can be read or written (pkg/fat limits a volume to what its
// boot sector describes). It never grows the window; call it before the
// Device is shared between goroutines.
func (d *Device) Limit(n int64) error {
	if n < 0 || n > d.size {
		return fmt.Errorf("io: %s: cannot limit a %d-byte volume to %d bytes: %w", d.path, d.size, n, ErrOutOfRange)
	}
	if d.opened0 == 0 {
		d.opened0 = d.size
	}
	d.size = n
	return nil
}

// Unlimit undoes Limit: the window is the one the Device was opened on
// again (a resize grows a volume into the rest of its partition or image).
// Call it before the Device is shared between goroutines.
func (d *Device) Unlimit() {
	if d.opened0 != 0 {
		d.size = d.opened0
	}
}
