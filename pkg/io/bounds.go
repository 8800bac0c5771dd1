package io

import (
	"errors"
	"fmt"
	"strings"
)

// ErrOutsidePartition is returned when a volume given by offset would be
// written where no partition of the disk's table starts.
var ErrOutsidePartition = errors.New("io: offset is not where a partition starts")

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
				return 0, fmt.Errorf("io: %s: offset %d lies inside %s partition %d (bytes %d to %d) but not at its start: refusing to write there; use partition %d (offset %d) instead, or force: %w",
					d.path, off, strings.ToUpper(t.Kind), p.Index, p.Start, end-1, p.Index, p.Start, ErrOutsidePartition)
			}
			return end, nil
		case p.Start > off && p.Start < next:
			next = p.Start
		}
	}
	if refuse && len(t.Partitions) > 0 {
		return 0, fmt.Errorf("io: %s: offset %d lies in no partition of its %s table (%s): refusing to write there; use one of them instead, or force: %w",
			d.path, off, strings.ToUpper(t.Kind), listPartitions(t), ErrOutsidePartition)
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
	d.size = n
	return nil
}
