//go:build !linux

package readahead

// mapHuge maps nothing off Linux (no huge pages, no madvise): getBuffer
// then takes an ordinary aligned buffer from the device.
func mapHuge(size int) []byte { return nil }
