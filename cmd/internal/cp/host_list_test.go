package cp

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Listing a host folder allocates about two things per member (its name,
// and the name as stat(2) takes it): no path, no FileInfo, no DirEntry,
// which a walk of a million files would otherwise leave to the collector
// by the million. What it lists is what stat says: kind, size, time,
// sorted by name.
func TestHostListAllocations(t *testing.T) {
	dir := t.TempDir()
	const files = 200
	for i := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file %03d.txt", files-1-i)), make([]byte, i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2020, 5, 6, 7, 8, 9, 123456789, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "file 007.txt"), when, when); err != nil {
		t.Fatal(err)
	}
	h := hostSide{}
	ents, err := h.list(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != files+1 || ents[0].name != "file 000.txt" || ents[files].name != "sub" || ents[files].kind != kindDir {
		t.Fatalf("listed %d: first %+v, last %+v", len(ents), ents[0], ents[len(ents)-1])
	}
	if e := ents[7]; e.kind != kindFile || e.size != files-1-7 || !e.mtime.t().Equal(when) {
		t.Fatalf("file 007.txt: %+v", e)
	}
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := h.list(dir); err != nil {
			t.Fatal(err)
		}
	})
	if per := allocs / (files + 1); per > 2.5 {
		t.Fatalf("listing %d members: %.0f allocations, %.1f per member; want at most 2.5", files+1, allocs, per)
	}
}
