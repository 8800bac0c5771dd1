package io

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	good := []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"512", 512}, {"4K", 4096}, {"4k", 4096}, {"4KiB", 4096}, {"4Ki", 4096}, {"4kb", 4000}, {"4KB", 4000},
		{"2GB", 2e9}, {"2Gi", 2 << 30}, {"2GiB", 2 << 30}, {"3MB", 3e6}, {"1TB", 1e12}, {"1Ti", 1 << 40}, {"5mi", 5 << 20},
		{"1M", 1 << 20}, {"2G", 2 << 30}, {"1T", 1 << 40}, {"0x200", 512}, {"0X10", 16},
		{" 16M ", 16 << 20}, {"100B", 100}, {"8388607T", 8388607 << 40},
	}
	for _, c := range good {
		if got, err := ParseSize(c.in); err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "K", "-1", "1.5M", "4X", "0x", "0xZZ", "1 M", "8388608T", "99999999999999999999", "0x1K"} {
		_, err := ParseSize(in)
		if err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		} else if !strings.Contains(err.Error(), `"`+in+`"`) {
			t.Errorf("ParseSize(%q) error %q does not name the input", in, err)
		}
	}
}

func TestParseImageSpec(t *testing.T) {
	good := []struct {
		in, path string
		off      int64
	}{
		{"disk.img", "disk.img", 0},
		{"disk.img@@1M", "disk.img", 1 << 20},
		{"/dev/sdb@@0x8000", "/dev/sdb", 0x8000},
		{"a@@b.img@@512", "a@@b.img", 512},
		{"card.img@@2048S", "card.img", 2048 * 512}, // mtools' sectors, always 512 bytes
		{"card.img@@2048s", "card.img", 2048 * 512},
		{"card.img@@0x800S", "card.img", 2048 * 512},
		{"card.img@@0S", "card.img", 0},
	}
	for _, c := range good {
		p, off, err := ParseImageSpec(c.in)
		if err != nil || p != c.path || off != c.off {
			t.Errorf("ParseImageSpec(%q) = %q, %d, %v", c.in, p, off, err)
		}
	}
	for _, in := range []string{"", "@@512", "disk.img@@", "disk.img@@12Q", "disk.img@@S", "disk.img@@1KS", "disk.img@@-1S", "disk.img@@99999999999999999999S", "disk.img@@36028797018963968S"} {
		if _, _, err := ParseImageSpec(in); err == nil {
			t.Errorf("ParseImageSpec(%q) succeeded", in)
		}
	}
}

func TestParseSyncPolicy(t *testing.T) {
	for _, p := range []SyncPolicy{SyncNone, SyncClose, SyncFile, SyncAlways} {
		got, err := ParseSyncPolicy(p.String())
		if err != nil || got != p {
			t.Errorf("round trip of %v: %v, %v", p, got, err)
		}
	}
	if got, err := ParseSyncPolicy("ALWAYS"); err != nil || got != SyncAlways {
		t.Errorf("ParseSyncPolicy(ALWAYS) = %v, %v", got, err)
	}
	for _, in := range []string{"", "sync", "flush", "closed"} {
		if _, err := ParseSyncPolicy(in); err == nil {
			t.Errorf("ParseSyncPolicy(%q) succeeded", in)
		}
	}
	if DefaultSync != SyncClose || SyncPolicy(9).String() != "SyncPolicy(9)" {
		t.Errorf("DefaultSync %v, bad policy %v", DefaultSync, SyncPolicy(9))
	}
}

func TestStatsOutput(t *testing.T) {
	s := Stats{WriteRequests: 9, WriteBytes: 36 << 20, ReadRequests: 2, ReadBytes: 8192, Flushes: 1,
		ZeroRequests: 1, ZeroBytes: 1 << 20, Elapsed: 12 * time.Millisecond, Direct: true, Align: 512, Policy: SyncClose}
	var b strings.Builder
	n, err := s.WriteTo(&b)
	if err != nil || n != int64(b.Len()) {
		t.Fatalf("WriteTo = %d, %v", n, err)
	}
	want := "writes: 9 requests, 36.0 MiB, avg 4.0 MiB\n" +
		"reads: 2 requests, 8.0 KiB, avg 4.0 KiB\n" +
		"zeroed: 1 request, 1.0 MiB\n" +
		"flushes: 1 (sync=close)\n" +
		"time: 0.012 s, 2.9 GiB/s\n" +
		"I/O: O_DIRECT (align 512)\n"
	if b.String() != want {
		t.Errorf("WriteTo:\n%s\nwant:\n%s", b.String(), want)
	}
	s.Direct, s.Fallback = false, "O_DIRECT refused (EINVAL), using buffered I/O"
	b.Reset()
	s.WriteTo(&b)
	if !strings.HasSuffix(b.String(), "I/O: O_DIRECT refused (EINVAL), using buffered I/O\n") {
		t.Errorf("fallback line missing:\n%s", b.String())
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{"write_requests": 9.0, "write_bytes": float64(36 << 20), "avg_write_size": float64(4 << 20),
		"elapsed_seconds": 0.012, "direct": false, "sync": "close", "zero_bytes": float64(1 << 20), "fallback": s.Fallback} {
		if m[k] != v {
			t.Errorf("json %s = %v, want %v (%s)", k, m[k], v, js)
		}
	}
	if (Stats{}).AvgWriteSize() != 0 {
		t.Error("AvgWriteSize without writes")
	}
}
