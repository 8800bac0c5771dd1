package exfat

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// A directory of many names is held in memory whole; what it keeps per
// name besides its entries is counted: the record, its name (UTF-8 and
// UTF-16) and its place in the index. The index used to key each name by
// a copy of it, up-cased, kept in the record too: 331 bytes a name of
// 40-60 characters; keyed by a hash of it, 194; with the stream
// extension's fields ordered so that it packs in 24 bytes, not 32, 178.
func TestDirMemoryPerName(t *testing.T) {
	const n = 20000
	up := DefaultUpcase()
	var raw []byte
	for i := 0; i < n; i++ {
		u, err := EncodeName(fmt.Sprintf("%05d %s.txt", i, strings.Repeat("a long name ", 5)[:30+i%21]))
		if err != nil {
			t.Fatal(err)
		}
		s := EntrySet{File: FileEntry{Attr: AttrArchive}, Stream: StreamEntry{Flags: streamAllocOK}, Name: u}
		raw = append(raw, s.Encode(up)...)
	}
	raw = append(raw, make([]byte, EntrySize)...) // the end marker
	var before, after runtime.MemStats
	raw = raw[:len(raw):len(raw)]
	runtime.GC()
	runtime.ReadMemStats(&before)
	d := &dir{v: &Volume{up: up}}
	d.index(raw, up)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(d.recs) != n || d.hidden != nil {
		t.Fatalf("indexed %d records (%v); want %d", len(d.recs), d.hidden, n)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		r := d.recs[i]
		if got := d.lookup(strings.ToUpper(r.Name)); got != r {
			t.Fatalf("%q not found by its name", r.Name)
		}
	}
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc) - int64(len(raw))) / n
	runtime.KeepAlive(d)
	t.Logf("%d bytes a name", per)
	if per > 185 {
		t.Errorf("a directory of %d names of 40-60 characters keeps %d bytes a name, want at most 185", n, per)
	}
}
