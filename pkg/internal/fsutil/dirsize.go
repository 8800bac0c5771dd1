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
