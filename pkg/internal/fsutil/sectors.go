package fsutil

import "slices"

// MarkSectors records in dirty the sectors (per slots each) that slots
// slot to slot+n-1 of a directory's in-memory copy lie in: both codecs
// write a changed directory back a sector at a time.
func MarkSectors(dirty map[int]struct{}, slot, n, per int) {
	for s := slot / per; s <= (slot+n-1)/per; s++ {
		dirty[s] = struct{}{}
	}
}

// FlushSectors writes the dirty sectors of raw (ss bytes each) in order,
// each with write at the device offset at maps its offset in raw to, and
// forgets them once all went out.
func FlushSectors(dirty map[int]struct{}, raw []byte, ss int64, at func(off int64) (int64, error), write func(dev int64, p []byte) error) error {
	secs := make([]int, 0, len(dirty))
	for s := range dirty {
		secs = append(secs, s)
	}
	slices.Sort(secs)
	for _, s := range secs {
		off := int64(s) * ss
		dev, err := at(off)
		if err != nil {
			return err
		}
		if err := write(dev, raw[off:off+ss]); err != nil {
			return err
		}
	}
	clear(dirty)
	return nil
}
