package io

import (
	"encoding/json"
	"fmt"
	goio "io"
	"strings"
	"time"
)

// Stats counts what reached the kernel: every pread, pwrite, fallocate,
// ioctl and fdatasync the Device issued.
type Stats struct {
	WriteRequests int64 `json:"write_requests"`
	WriteBytes    int64 `json:"write_bytes"`
	ReadRequests  int64 `json:"read_requests"`
	ReadBytes     int64 `json:"read_bytes"`
	Flushes       int64 `json:"flushes"`
	ZeroRequests  int64 `json:"zero_requests"` // successful fallocate / BLKZEROOUT calls
	ZeroBytes     int64 `json:"zero_bytes"`    // bytes those calls covered
	// DiscardRequests counts successful BLKDISCARD / BLKSECDISCARD ioctls
	// and hole punches (Discard), DiscardBytes the bytes they covered.
	DiscardRequests int64         `json:"discard_requests"`
	DiscardBytes    int64         `json:"discard_bytes"`
	Elapsed         time.Duration `json:"-"` // since Open (or until Close)
	Direct          bool          `json:"direct"`
	Align           int           `json:"align"` // alignment of direct requests (1 when buffered)
	// Fallback says why buffered I/O is in use although direct I/O was
	// asked for; "" when direct I/O is in use or buffered I/O was forced.
	Fallback string     `json:"fallback"`
	Policy   SyncPolicy `json:"sync"`
	// PageCache says how the host files a command read and wrote passed
	// the page cache (HostFile's modes, set by the command); "" when it
	// read or wrote none of HostDropMin or more.
	PageCache string `json:"page_cache"`

	// MaxReadsInFlight is the most reads a read-ahead pipeline had in
	// flight at once (ReadAtConcurrent); 0 when none ran.
	MaxReadsInFlight int64 `json:"max_reads_in_flight"`
	readsInFlight    int64 // reads in flight now
}

// AvgWriteSize is the mean size of a write request in bytes (0 without writes).
func (s Stats) AvgWriteSize() int64 {
	if s.WriteRequests == 0 {
		return 0
	}
	return s.WriteBytes / s.WriteRequests
}

// MarshalJSON encodes the stats with snake_case keys, the elapsed time as
// elapsed_seconds and the derived avg_write_size.
func (s Stats) MarshalJSON() ([]byte, error) {
	type plain Stats // drops this method
	return json.Marshal(struct {
		plain
		AvgWriteSize   int64   `json:"avg_write_size"`
		ElapsedSeconds float64 `json:"elapsed_seconds"`
	}{plain(s), s.AvgWriteSize(), s.Elapsed.Seconds()})
}

// WriteTo writes the stats as the human lines --stats prints.
func (s Stats) WriteTo(w goio.Writer) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "writes: %s, %s, avg %s\n", requests(s.WriteRequests), humanBytes(s.WriteBytes), humanBytes(s.AvgWriteSize()))
	var avgRead int64
	if s.ReadRequests > 0 {
		avgRead = s.ReadBytes / s.ReadRequests
	}
	fmt.Fprintf(&b, "reads: %s, %s, avg %s", requests(s.ReadRequests), humanBytes(s.ReadBytes), humanBytes(avgRead))
	if s.MaxReadsInFlight > 0 {
		fmt.Fprintf(&b, ", up to %d in flight", s.MaxReadsInFlight)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "zeroed: %s, %s\n", requests(s.ZeroRequests), humanBytes(s.ZeroBytes))
	if s.DiscardRequests > 0 {
		fmt.Fprintf(&b, "discarded: %s, %s\n", requests(s.DiscardRequests), humanBytes(s.DiscardBytes))
	}
	fmt.Fprintf(&b, "flushes: %d (sync=%s)\n", s.Flushes, s.Policy)
	secs := s.Elapsed.Seconds()
	if secs > 0 {
		// Binary units, as the sizes above and the progress bar use.
		rate := float64(s.WriteBytes+s.ReadBytes) / secs
		fmt.Fprintf(&b, "time: %.3f s, %s/s\n", secs, humanBytes(int64(rate)))
	} else {
		fmt.Fprintf(&b, "time: %.3f s\n", secs)
	}
	switch {
	case s.Direct:
		fmt.Fprintf(&b, "I/O: O_DIRECT (align %d)\n", s.Align)
	case s.Fallback != "":
		fmt.Fprintf(&b, "I/O: %s\n", s.Fallback)
	default:
		b.WriteString("I/O: buffered\n")
	}
	if s.PageCache != "" {
		fmt.Fprintf(&b, "page cache: %s\n", s.PageCache)
	}
	n, err := goio.WriteString(w, b.String())
	return int64(n), err
}

// humanBytes formats n with one decimal in the largest binary unit that fits.
// requests counts requests, singular for one.
func requests(n int64) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}

func humanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		v /= 1024
		if v < 1024 || u == "TiB" {
			return fmt.Sprintf("%.1f %s", v, u)
		}
	}
	return "" // not reached
}
