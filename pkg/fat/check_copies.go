package fat

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// fatCopies holds every FAT copy: FAT 1 is the volume's table, a copy
// equal to it is the same table, a differing one its own (read in windows
// as the check follows it).
type fatCopies struct {
	tables []Table
	differ []int // copies (0-based) that differ from FAT 1
	first  []int // per copy in differ: the first byte that differs

	// FAT 1's free and bad data clusters as on the disk, counted from the
	// same reads (counted false when FAT 1 was not read: mirroring off).
	counted   bool
	free, bad uint32
}

// copyChunk is how much of each FAT copy is read and compared at a time:
// the device sees 4 MiB requests, and memory holds one chunk per copy
// whatever the FAT's size.
const copyChunk = 4 << 20

// fatCopyJob reads the FAT copies in the background while the tree is
// walked: on a large volume reading them takes as long as the walk.
type fatCopyJob struct {
	done  chan struct{}
	fc    *fatCopies
	past  []int // copies that lie past the end of the device
	err   error
	taken bool
}

// startFATCopies starts reading FAT 1 and copies 2.., comparing them and
// counting FAT 1's free and bad clusters. FAT 1 must not change until
// wait returns.
func startFATCopies(ctx context.Context, v *Volume, rep *Report) *fatCopyJob {
	j := &fatCopyJob{done: make(chan struct{})}
	if v.boot.Is32 && v.boot.ExtFlags&0x80 != 0 && v.layout.NumFATs > 1 {
		rep.warnf("FAT mirroring is off (only FAT %d is active); the copies were not compared", v.boot.ExtFlags&0x0F+1)
		j.fc = newFATCopies(v)
		close(j.done)
		return j
	}
	go func() {
		defer close(j.done)
		j.fc, j.past, j.err = readFATCopies(ctx, v)
	}()
	return j
}

// wait returns the copies once read, reporting those past the device's
// end. It may be called more than once.
func (j *fatCopyJob) wait(v *Volume, rep *Report) (*fatCopies, error) {
	<-j.done
	if !j.taken {
		j.taken = true
		for _, i := range j.past {
			volProblem(rep, KindFATCopies, v.layout.FATCopyOffset(i), "FAT %d lies past the end of the device", i+1)
		}
	}
	return j.fc, j.err
}

func newFATCopies(v *Volume) *fatCopies {
	fc := &fatCopies{tables: make([]Table, max(v.layout.NumFATs, 1))}
	for i := range fc.tables {
		fc.tables[i] = v.table
	}
	return fc
}

// readFATCopies reads FAT 1 and every copy 2.. from the disk a chunk at a
// time (one request per chunk and copy), counts FAT 1's free and bad
// clusters, and keeps the copies that differ from FAT 1 in the bytes that
// hold entries, each as a windowed table. A copy is read only until it
// differs. past lists the copies that lie past the device's end. Each
// chunk is a cancellation point: once ctx is done, it stops with its
// error.
func readFATCopies(ctx context.Context, v *Volume) (fc *fatCopies, past []int, err error) {
	l := v.layout
	fc = newFATCopies(v)
	var want []int
	for i := 1; i < l.NumFATs; i++ {
		if l.FATCopyOffset(i)+l.FATSize > v.dev.Size() {
			past = append(past, i)
		} else {
			want = append(want, i)
		}
	}
	firstOf := map[int]int{}
	err = streamFATs(v, 0, want, func(pos int64, fat1 []byte, copies [][]byte) ([]int, error) {
		if err := fsutil.Cancelled(ctx); err != nil {
			return nil, err
		}
		free, bad := countEntries(l, pos, fat1)
		fc.free += free
		fc.bad += bad
		var still []int
		for k, b := range copies {
			if bytes.Equal(fat1, b) { // memcmp: a byte loop would cost more than the read
				still = append(still, want[k])
				continue
			}
			// A differing copy is read no further here: the check follows
			// it through a windowed table.
			i := want[k]
			tb, err := newFATCopyCache(v.dev, l, i)
			if err != nil {
				return nil, err
			}
			fc.tables[i] = tb
			firstOf[i] = int(pos) + firstDiff(fat1, b)
		}
		want = still
		return want, nil
	})
	if err != nil {
		return nil, nil, err
	}
	fc.differ = slices.Sorted(maps.Keys(firstOf))
	for _, i := range fc.differ {
		fc.first = append(fc.first, firstOf[i])
	}
	fc.counted = true
	return fc, past, nil
}

// streamFATs reads the bytes that hold entries of FAT 1 and of copies
// want (0-based), from the chunk that holds byte from of the table to the
// table's end, one chunk of each at a time, and hands fn each chunk's
// position in the table, FAT 1's chunk and the copies' (in the order of
// want). fn returns the copies to read from then on.
func streamFATs(v *Volume, from int64, want []int, fn func(pos int64, fat1 []byte, copies [][]byte) ([]int, error)) error {
	l := v.layout
	n := fatBytes(l.Type, l.Clusters)
	size := int(min(copyChunk, n))
	bufs := [][]byte{v.dev.AlignedBuffer(size)}
	for range want {
		bufs = append(bufs, v.dev.AlignedBuffer(size))
	}
	for pos := from / copyChunk * copyChunk; pos < n; pos += copyChunk {
		m := min(copyChunk, n-pos)
		chunks := make([][]byte, 1+len(want))
		for k, i := range append([]int{0}, want...) {
			chunks[k] = bufs[k][:m]
			// Concurrent: the walk's directory reads need not wait behind
			// this chunk for the device's lock.
			off := l.FATCopyOffset(i) + pos
			if _, err := v.dev.ReadAtConcurrent(chunks[k], off); err != nil {
				return fmt.Errorf("fat: reading FAT %d at byte %d: %w", i+1, off, err)
			}
		}
		var err error
		if want, err = fn(pos, chunks[0], chunks[1:]); err != nil {
			return err
		}
	}
	return nil
}

// countEntries counts the free and bad data clusters (entries 2..) among
// the entries in raw, the bytes of FAT 1 from byte pos of the table on
// (whole entries: FAT12 and FAT16 tables fit in one chunk).
func countEntries(l *Layout, pos int64, raw []byte) (free, bad uint32) {
	if l.Type != FAT32 {
		tb, err := NewTable(l.Type, raw, l.Clusters)
		if err != nil {
			return 0, 0
		}
		free, bad, _ = clusterCounts(tb, nil)
		return free, bad
	}
	first := pos / 4
	for k := int64(0); k+4 <= int64(len(raw)); k += 4 {
		if first+k/4 < int64(FirstCluster) {
			continue
		}
		switch binary.LittleEndian.Uint32(raw[k:]) & mask32 {
		case 0:
			free++
		case bad32:
			bad++
		}
	}
	return free, bad
}

// judgeCopies scores every copy's chains against the tree the walk found
// with FAT 1, reports each differing copy, and returns the sound copy:
// the one with the fewest chain faults, FAT 1 on a tie. fsck.fat takes
// FAT 1 unless its first entry is damaged; a copy whose chains hold
// together better is the better source whatever FAT[0] says, and FAT[0]
// is rewritten anyway.
func judgeCopies(v *Volume, rep *Report, t *treeCheck, fc *fatCopies) (int, error) {
	scores := map[int]int{0: t.score(v.table)}
	sound := 0
	for _, i := range fc.differ {
		scores[i] = t.score(fc.tables[i])
		if scores[i] < scores[sound] {
			sound = i
		}
	}
	for k, i := range fc.differ {
		diff := 0
		first := int64(fc.first[k])
		err := streamFATs(v, first, []int{i}, func(pos int64, a []byte, b [][]byte) ([]int, error) {
			for x := max(first-pos, 0); x < int64(len(a)); x++ {
				if a[x] != b[0][x] {
					diff++
				}
			}
			return []int{i}, nil
		})
		if err != nil {
			return 0, err
		}
		msg := fmt.Sprintf("FAT %d differs from FAT 1 in %d bytes, first at byte %d of the FAT; chain faults: FAT 1 %d, FAT %d %d",
			i+1, diff, fc.first[k], scores[0], i+1, scores[i])
		pr := Problem{Kind: KindFATCopies, Offset: v.layout.FATCopyOffset(i) + int64(fc.first[k]), Message: msg}
		if sound == i {
			pr.Fix = "copy FAT " + fmt.Sprint(i+1) + " over FAT 1 and the other copies"
		} else {
			pr.Fix = fmt.Sprintf("copy FAT %d over FAT %d", sound+1, i+1)
		}
		rep.add(pr)
	}
	return sound, nil
}
