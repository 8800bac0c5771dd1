package fsutil

// SplitExtents keeps the first keep clusters of a file's extents exts
// and returns the kept extents and the cut ones, the extent that holds the
// boundary split in two (split(e, n): its first n clusters and the rest).
// size is an extent's length in clusters. Both codecs trim a file this way
// (a writer's unused clusters, a shortened file).
func SplitExtents[E any](exts []E, keep int64, size func(E) uint32, split func(e E, n uint32) (E, E)) (kept, cut []E) {
	for _, e := range exts {
		switch n := int64(size(e)); {
		case keep >= n:
			kept = append(kept, e)
			keep -= n
		case keep > 0:
			head, tail := split(e, uint32(keep))
			kept = append(kept, head)
			cut = append(cut, tail)
			keep = 0
		default:
			cut = append(cut, e)
		}
	}
	return kept, cut
}

// FreeSlots returns the first run of n free directory slots (free says
// which are) at or after slot from among slots, or -1. With perSector
// above 0 a run of at most that many never straddles two sectors of
// perSector slots (exFAT: half an entry set torn at a sector boundary is
// a damaged directory); 0 lets runs straddle (FAT's LFN runs may).
func FreeSlots(slots, n, from, perSector int, free func(i int) bool) int {
	if n < 1 {
		return -1
	}
	run := 0
	for i := max(from, 0); i < slots; i++ {
		if perSector > 0 && n <= perSector && i%perSector == 0 {
			run = 0
		}
		if free(i) {
			run++
			if run == n {
				return i - n + 1
			}
		} else {
			run = 0
		}
	}
	return -1
}
