package cmdutil

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// SourceDateEpoch is SOURCE_DATE_EPOCH (reproducible-builds.org) as a time,
// when it is set to a valid number of seconds (Main refuses to run with
// any other value: see CheckSourceDateEpoch).
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

// CheckSourceDateEpoch refuses a SOURCE_DATE_EPOCH that is set but not a
// number of seconds since 1970, as reproducible-builds.org asks of a
// build: ignoring it would give other bytes on every run with exit 0.
func CheckSourceDateEpoch() error {
	s, set := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !set || s == "" {
		return nil
	}
	if _, ok := SourceDateEpoch(); !ok {
		return fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a number of seconds since 1970-01-01 UTC: set it to one (git log -1 --format=%%ct) or unset it", s)
	}
	return nil
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
