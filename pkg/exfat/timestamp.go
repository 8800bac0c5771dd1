package exfat

import "time"

// Timestamp is one of an exFAT file's three times as the file directory
// entry stores it (exFAT specification 7.4.8 to 7.4.10):
//
//	Raw:       bits 31-25 year since 1980, 24-21 month 1-12, 20-16 day 1-31,
//	           15-11 hour 0-23, 10-5 minute 0-59, 4-0 seconds/2 0-29
//	Ms10:      10 ms units 0-199 adding the odd second and the fraction
//	           (the last-accessed time has none)
//	UTCOffset: bit 7 set when bits 6-0 hold the offset from UTC in
//	           15-minute units, a signed 7-bit value (-48..+56)
//
// ftools writes times in UTC with a valid offset of zero, so that an image
// does not depend on the time zone it was made in and every reader that
// honours the offset (Windows, Linux, macOS) shows the right local time.
type Timestamp struct {
	Raw       uint32
	Ms10      uint8
	UTCOffset uint8
}

const (
	tsYearBase   = 1980
	tsYearMax    = tsYearBase + 127 // 2107, the largest year 7 bits hold
	tsMs10Max    = 199
	utcOffValid  = 0x80
	utcOffMask   = 0x7F
	utcOffMinute = 15
)

// MakeTimestamp converts t to the on-disk form in UTC. Times before
// 1980-01-01 are clamped to it, times after 2107-12-31 23:59:59.99 to that.
func MakeTimestamp(t time.Time) Timestamp {
	t = t.UTC()
	if lo := time.Date(tsYearBase, 1, 1, 0, 0, 0, 0, time.UTC); t.Before(lo) {
		t = lo
	}
	if hi := time.Date(tsYearMax, 12, 31, 23, 59, 59, 990_000_000, time.UTC); t.After(hi) {
		t = hi
	}
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	raw := uint32(y-tsYearBase)<<25 | uint32(mo)<<21 | uint32(d)<<16 | uint32(h)<<11 | uint32(mi)<<5 | uint32(s/2)
	return Timestamp{Raw: raw, Ms10: uint8((s%2)*100 + t.Nanosecond()/10_000_000), UTCOffset: utcOffValid}
}

// Time converts the timestamp to a time.Time in the zone its offset names
// (time.Local when the offset is not valid, as the specification says).
// Out-of-range fields read from disk are clamped rather than rejected, so
// it never panics.
func (ts Timestamp) Time() time.Time {
	r := ts.Raw
	year := tsYearBase + int(r>>25)
	month := clampInt(int(r>>21&0x0F), 1, 12)
	day := clampInt(int(r>>16&0x1F), 1, daysIn(year, time.Month(month)))
	hour := clampInt(int(r>>11&0x1F), 0, 23)
	minute := clampInt(int(r>>5&0x3F), 0, 59)
	sec := clampInt(int(r&0x1F)*2, 0, 58)
	ms10 := min(int(ts.Ms10), tsMs10Max)
	sec += ms10 / 100
	nsec := ms10 % 100 * 10_000_000
	loc := time.Local
	if ts.UTCOffset&utcOffValid != 0 {
		off := int(int8(ts.UTCOffset<<1) >> 1) // sign-extend bits 6-0
		loc = time.FixedZone("", off*utcOffMinute*60)
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc)
}

func clampInt(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

// daysIn returns the number of days in month m of year y.
func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
