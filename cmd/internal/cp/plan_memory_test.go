package cp

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// A copy of a folder of 60,000 files holds a listing entry for each
// while the folder is walked, and a kept item for each until the folder
// is done: both are counted. They were 104 bytes (an entry with its time
// and a directory's identity and reason inline) and 96 bytes and a
// pointer (the whole item kept).
func TestPlanRecordSizes(t *testing.T) {
	if n := unsafe.Sizeof(entry{}); n > 56 {
		t.Errorf("a listing entry takes %d bytes, want at most 56", n)
	}
	if n := unsafe.Sizeof(kept{}); n > 48 {
		t.Errorf("a kept item takes %d bytes, want at most 48", n)
	}
}

// A retired chunk keeps its items still needed in one array, found by
// their places: 60,000 kept files cost some 50 bytes each, where an
// allocation and a map entry each cost some 72. Items let go free their
// chunk's array once all have gone.
func TestRetiredItemsMemory(t *testing.T) {
	const n = 15 * itemChunk
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("F%05d.TXT", i)
	}
	p := &Plan{}
	for i := range n {
		p.items.add(item{kind: itemFile, src: ref{1, names[i]}, dst: ref{2, names[i]}, parent: -1, ahead: -1})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	chunks := p.items.chunks
	p.ran = n
	p.retire()
	chunks = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc) + int64(n*unsafe.Sizeof(item{}))) / n
	t.Logf("%d bytes a kept item", per)
	if per > 56 {
		t.Errorf("a retired item kept takes %d bytes, want at most 56", per)
	}
	for _, i := range []int{0, itemChunk + 7, n - 1} {
		if it := p.items.at(i); it == nil || it.src.name != names[i] || it.dst.at != 2 || it.kind != itemFile {
			t.Fatalf("item %d after retiring: %+v", i, it)
		}
	}
	for i := range itemChunk {
		p.items.free(i)
	}
	if p.items.at(0) != nil || p.items.at(itemChunk-1) != nil || p.items.spill[0] != nil {
		t.Error("the first chunk's items, all let go, are still kept")
	}
	if it := p.items.at(itemChunk); it == nil || it.src.name != names[itemChunk] {
		t.Errorf("item %d, not let go: %+v", itemChunk, it)
	}
	runtime.KeepAlive(chunks)
}
