package cmdutil

import (
	"os"
	"strconv"
	"time"
)

// SourceDateEpoch is SOURCE_DATE_EPOCH (reproducible-builds.org) as a time,
// when it is set to a valid number of seconds.
func SourceDateEpoch() (time.Time, bool) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// Now is the clock for times ftools writes: SOURCE_DATE_EPOCH when set, so
// that builds are reproducible, else the real time.
func Now() time.Time {
	if t, ok := SourceDateEpoch(); ok {
		return t
	}
	return time.Now()
}

// Clamp limits t to SOURCE_DATE_EPOCH when that is set, as
// reproducible-builds.org asks of every time a build writes.
func Clamp(t time.Time) time.Time {
	if sde, ok := SourceDateEpoch(); ok && t.After(sde) {
		return sde
	}
	return t
}
