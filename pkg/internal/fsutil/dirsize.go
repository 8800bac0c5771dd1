package fsutil

// PackSlots is where the next record goes in a new directory filled in
// order, after a record of n slots placed at slot at: both codecs never
// let a record straddle a sector of perSector slots (unless it is longer
// than a sector), so one that would is moved to the next sector's start.
// A planner that adds its members' records in turn this way counts the
// slots a directory of them takes, the skipped ones included.
func PackSlots(at, n, perSector int) int {
	if perSector > 0 {
		if used := at % perSector; used > 0 && used+n > perSector {
			at += perSector - used
		}
	}
	return at + n
}

// DirClusters is how many clusters of cs bytes a new directory is made
// with to hold slots slots of 32 bytes: all of them, so that it never
// grows in pieces between its files' data, but at least one, at most
// maxBytes' worth (the format's limit) and at most free (the rest then
// comes as it grows, as for a directory made without a size).
func DirClusters(slots, cs, maxBytes, free int64) int64 {
	n := (slots*32 + cs - 1) / cs
	n = min(n, maxBytes/cs, free)
	return max(n, 1)
}

// AllocDir takes the clusters of a new directory for slots slots, as
// DirClusters counts them, with allocate (the codec's, n clusters placed
// where it chooses); when that many are not there after all (a first
// change can hold clusters the free count still shows) it takes one
// cluster, which grows as the directory fills, as a directory made
// without a size. It returns the runs and how many clusters they hold.
func AllocDir[E any](slots, cs, maxBytes, free int64, allocate func(n uint32) ([]E, error)) ([]E, int64, error) {
	n := DirClusters(slots, cs, maxBytes, free)
	exts, err := allocate(uint32(n))
	if err != nil && n > 1 {
		n = 1
		exts, err = allocate(1)
	}
	return exts, n, err
}
