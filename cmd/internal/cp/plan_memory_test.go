package cp

import (
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
