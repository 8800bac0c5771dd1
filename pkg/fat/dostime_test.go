package fat

import (
	"testing"
	"time"
)

// useZone sets time.Local for one test, as FAT stores local time.
func useZone(t *testing.T, loc *time.Location) {
	t.Helper()
	old := time.Local
	time.Local = loc
	t.Cleanup(func() { time.Local = old })
}

func TestToDOSTimeKnown(t *testing.T) {
	useZone(t, time.UTC)
	for _, tc := range []struct {
		in       time.Time
		date, tm uint16
		tenths   uint8
	}{
		// 2026-12-02 14:20:24 as mtools wrote it: bytes 8c 72 82 5d.
		{time.Date(2026, 12, 2, 14, 20, 24, 0, time.UTC), 0x5d82, 0x728c, 0},
		{time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC), 1<<5 | 1, 0, 0},
		{time.Date(1979, 12, 31, 23, 59, 59, 0, time.UTC), 1<<5 | 1, 0, 0},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), 1<<5 | 1, 0, 0},
		{time.Date(2107, 12, 31, 23, 59, 58, 0, time.UTC), 127<<9 | 12<<5 | 31, 23<<11 | 59<<5 | 29, 0},
		{time.Date(2107, 12, 31, 23, 59, 59, 999_999_999, time.UTC), 127<<9 | 12<<5 | 31, 23<<11 | 59<<5 | 29, 199},
		{time.Date(2108, 1, 1, 0, 0, 0, 0, time.UTC), 127<<9 | 12<<5 | 31, 23<<11 | 59<<5 | 29, 199},
		{time.Date(2000, 2, 29, 12, 34, 57, 500_000_000, time.UTC), 20<<9 | 2<<5 | 29, 12<<11 | 34<<5 | 28, 150},
		{time.Date(2000, 2, 29, 12, 34, 56, 999_000_000, time.UTC), 20<<9 | 2<<5 | 29, 12<<11 | 34<<5 | 28, 99},
	} {
		d, tm, tn := ToDOSTime(tc.in)
		if d != tc.date || tm != tc.tm || tn != tc.tenths {
			t.Errorf("ToDOSTime(%v) = %#04x %#04x %d, want %#04x %#04x %d", tc.in, d, tm, tn, tc.date, tc.tm, tc.tenths)
		}
	}
}

func TestToDOSTimeUsesLocal(t *testing.T) {
	useZone(t, time.FixedZone("UTC+2", 2*3600))
	d, tm, _ := ToDOSTime(time.Date(2020, 6, 30, 23, 0, 0, 0, time.UTC))
	got := FromDOSTime(d, tm, 0)
	want := time.Date(2020, 7, 1, 1, 0, 0, 0, time.Local)
	if !got.Equal(want) || got.Hour() != 1 || got.Day() != 1 {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDOSTimeRoundTrip(t *testing.T) {
	useZone(t, time.UTC)
	for _, in := range []time.Time{
		time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1980, 1, 1, 0, 0, 1, 10_000_000, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 990_000_000, time.UTC),
		time.Date(2024, 2, 29, 7, 8, 9, 123_456_789, time.UTC),
		time.Date(2107, 12, 31, 23, 59, 59, 990_000_000, time.UTC),
	} {
		d, tm, tn := ToDOSTime(in)
		if got, want := FromDOSTime(d, tm, tn), in.Truncate(10*time.Millisecond); !got.Equal(want) {
			t.Errorf("with tenths: %v -> %v, want %v", in, got, want)
		}
		// Without tenths the odd second is lost: 2-second resolution.
		want := in.Truncate(time.Second).Add(-time.Duration(in.Second()%2) * time.Second)
		if got := FromDOSTime(d, tm, 0); !got.Equal(want) {
			t.Errorf("without tenths: %v -> %v, want %v", in, got, want)
		}
	}
}

func TestFromDOSTimeClamps(t *testing.T) {
	useZone(t, time.UTC)
	for _, tc := range []struct {
		date, tm uint16
		tenths   uint8
		want     time.Time
	}{
		{0, 0, 0, time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)},
		{0xFFFF, 0xFFFF, 0xFF, time.Date(2107, 12, 31, 23, 59, 59, 990_000_000, time.UTC)},
		{20<<9 | 2<<5 | 31, 0, 0, time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC)}, // Feb 31 -> 29 (leap)
		{21<<9 | 2<<5 | 30, 0, 0, time.Date(2001, 2, 28, 0, 0, 0, 0, time.UTC)},
		{21<<9 | 13<<5 | 1, 0, 0, time.Date(2001, 12, 1, 0, 0, 0, 0, time.UTC)},
		{21<<9 | 4<<5 | 0, 24<<11 | 60<<5 | 30, 0, time.Date(2001, 4, 1, 23, 59, 58, 0, time.UTC)},
		{21<<9 | 4<<5 | 5, 1<<11 | 2<<5 | 3, 101, time.Date(2001, 4, 5, 1, 2, 7, 10_000_000, time.UTC)},
	} {
		if got := FromDOSTime(tc.date, tc.tm, tc.tenths); !got.Equal(tc.want) {
			t.Errorf("FromDOSTime(%#04x, %#04x, %d) = %v, want %v", tc.date, tc.tm, tc.tenths, got, tc.want)
		}
	}
}
