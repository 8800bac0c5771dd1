package fat

import "time"

// DOS date and time fields as FAT stores them in directory entries.
//
//	date: bits 15-9 year since 1980, bits 8-5 month 1-12, bits 4-0 day 1-31
//	time: bits 15-11 hour 0-23, bits 10-5 minute 0-59, bits 4-0 seconds/2 0-29
//	tenths (creation only): 10 ms units 0-199, adding the odd second and the fraction
//
// FAT has no time zone: the values are local time, so conversion uses time.Local.
const (
	dosYearBase = 1980
	dosYearMax  = dosYearBase + 127 // 2107, the largest year 7 bits can hold
	dosTenthMax = 199
)

// dosMinTime and dosMaxTime are the representable range in time.Local; they are
// functions so that a test changing time.Local is honoured.
func dosMinTime() time.Time { return time.Date(dosYearBase, 1, 1, 0, 0, 0, 0, time.Local) }
func dosMaxTime() time.Time {
	return time.Date(dosYearMax, 12, 31, 23, 59, 59, 990_000_000, time.Local)
}

// ToDOSTime converts t (in time.Local) to the FAT date, time and creation
// tenths fields. Times before 1980-01-01 00:00:00 are clamped to it, times after
// 2107-12-31 23:59:59.99 to that (date 2107-12-31, time 23:59:58, tenths 199).
// tm has 2-second resolution; tenths carries the odd second and the fraction in
// 10 ms units (0..199) for the creation time, and is ignored for other times.
func ToDOSTime(t time.Time) (date, tm uint16, tenths uint8) {
	t = t.In(time.Local)
	if lo := dosMinTime(); t.Before(lo) {
		t = lo
	}
	if hi := dosMaxTime(); t.After(hi) {
		t = hi
	}
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	date = uint16(y-dosYearBase)<<9 | uint16(mo)<<5 | uint16(d)
	tm = uint16(h)<<11 | uint16(mi)<<5 | uint16(s/2)
	tenths = uint8((s%2)*100 + t.Nanosecond()/10_000_000)
	return date, tm, tenths
}

// FromDOSTime converts FAT date, time and tenths fields to a time in
// time.Local. Out-of-range fields found on disk are clamped rather than
// rejected: month 0 becomes 1 and 13-15 become 12, day 0 becomes 1 and a day
// past the month's end becomes its last day, hour 24-31 becomes 23, minute
// 60-63 becomes 59, seconds 60-62 become 58, tenths above 199 become 199. So
// date 0 (unset) reads as 1980-01-01. It never panics.
func FromDOSTime(date, tm uint16, tenths uint8) time.Time {
	year := dosYearBase + int(date>>9)
	month := clampInt(int(date>>5&0x0F), 1, 12)
	day := clampInt(int(date&0x1F), 1, daysIn(year, time.Month(month)))
	hour := clampInt(int(tm>>11), 0, 23)
	minute := clampInt(int(tm>>5&0x3F), 0, 59)
	sec := clampInt(int(tm&0x1F)*2, 0, 58)
	if tenths > dosTenthMax {
		tenths = dosTenthMax
	}
	sec += int(tenths) / 100
	nsec := int(tenths) % 100 * 10_000_000
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.Local)
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// daysIn returns the number of days in month m of year y.
func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
