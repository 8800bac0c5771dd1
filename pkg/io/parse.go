package io

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultIOSize is the largest request size used when Options.IOSize is 0.
const DefaultIOSize = 4 << 20

// SyncPolicy says when written data is flushed to stable storage.
type SyncPolicy int

// Sync policies, as chosen with --sync. The zero value is SyncClose, the
// default: Options{} flushes when the device is closed, and a caller who
// wants no flush at all says SyncNone.
const (
	SyncClose  SyncPolicy = iota // one flush when the device is closed (the default)
	SyncNone                     // never flush; Close just closes
	SyncFile                     // a flush after every file (FileDone) and on close
	SyncAlways                   // O_DSYNC: every write is durable when it returns
)

// DefaultSync is the policy commands use when --sync is not given, and
// what the zero SyncPolicy means.
const DefaultSync = SyncClose

var syncNames = [...]string{SyncNone: "none", SyncClose: "close", SyncFile: "file", SyncAlways: "always"}

// ParseSyncPolicy parses "none", "close", "file" or "always".
func ParseSyncPolicy(s string) (SyncPolicy, error) {
	for p, name := range syncNames {
		if strings.EqualFold(strings.TrimSpace(s), name) {
			return SyncPolicy(p), nil
		}
	}
	return 0, fmt.Errorf("io: sync policy %q: want none, close, file or always", s)
}

// String returns the policy's name as ParseSyncPolicy accepts it.
func (p SyncPolicy) String() string {
	if p >= 0 && int(p) < len(syncNames) {
		return syncNames[p]
	}
	return fmt.Sprintf("SyncPolicy(%d)", int(p))
}

// MarshalText encodes the policy as its name.
func (p SyncPolicy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText decodes a policy name.
func (p *SyncPolicy) UnmarshalText(b []byte) error {
	v, err := ParseSyncPolicy(string(b))
	if err == nil {
		*p = v
	}
	return err
}

// sizeSuffixes maps upper-cased unit suffixes to their multiples, as
// truncate(1) and dd(1) read them: K, M, G, T and KiB, MiB, GiB, TiB (or
// Ki, Mi, Gi, Ti) are binary; KB, MB, GB, TB are decimal.
var sizeSuffixes = map[string]int64{
	"": 1, "B": 1,
	"K": 1 << 10, "KI": 1 << 10, "KIB": 1 << 10, "KB": 1e3,
	"M": 1 << 20, "MI": 1 << 20, "MIB": 1 << 20, "MB": 1e6,
	"G": 1 << 30, "GI": 1 << 30, "GIB": 1 << 30, "GB": 1e9,
	"T": 1 << 40, "TI": 1 << 40, "TIB": 1 << 40, "TB": 1e12,
}

// SizeHelp says how ParseSize reads a size, for help texts and messages.
const SizeHelp = "K/M/G/T or KiB/MiB/GiB/TiB binary, KB/MB/GB/TB decimal"

// ParseSize parses a byte count as truncate, dd and mkfs users write it: a
// decimal number with an optional unit ("512", "4K", "4KiB", "4Ki", "1M",
// "2G", "1T" are binary; "4KB", "2GB" decimal, so that "2GB" is
// 2,000,000,000 bytes as truncate reads it; units in either case), or a
// plain hexadecimal number "0x...". Errors name the input.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X") {
		v, err := strconv.ParseInt(t[2:], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("size %q: not a hexadecimal number that fits in 63 bits", s)
		}
		return v, nil
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: want a number such as 512, 4K, 1M, 2G, 2GB or 0x200", s)
	}
	mult, ok := sizeSuffixes[strings.ToUpper(t[i:])]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q (%s)", s, t[i:], SizeHelp)
	}
	v, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil || v > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return v * mult, nil
}

// ParseImageSpec splits "PATH@@OFFSET" into the path and the byte offset
// (parsed with ParseSize, or a number of 512-byte sectors with an S
// suffix, as mtools reads "card.img@@2048S"). Without "@@" the offset is
// 0.
func ParseImageSpec(s string) (path string, offset int64, err error) {
	i := strings.LastIndex(s, "@@")
	if i < 0 {
		path = s
	} else {
		path = s[:i]
		offset, err = parseOffset(s[i+2:])
		if err != nil {
			return "", 0, fmt.Errorf("image %q: offset: %w", s, err)
		}
	}
	if path == "" {
		return "", 0, fmt.Errorf("image %q: empty path", s)
	}
	return path, offset, nil
}

// parseOffset is ParseSize, plus mtools' sector suffix: "2048S" (or
// "2048s", "0x800S") is 2048 sectors of 512 bytes, whatever the device's
// sector size, as mtools counts them.
func parseOffset(s string) (int64, error) {
	t := strings.TrimSpace(s)
	n := len(t)
	if n < 2 || (t[n-1] != 'S' && t[n-1] != 's') {
		return ParseSize(s)
	}
	num := t[:n-1]
	hex := len(num) > 2 && (num[:2] == "0x" || num[:2] == "0X")
	digits := num
	if hex {
		digits = num[2:]
	}
	plain := digits != ""
	for _, c := range digits {
		plain = plain && (c >= '0' && c <= '9' || hex && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'))
	}
	if !plain {
		return 0, fmt.Errorf("size %q: a sector count (S: 512-byte sectors, as mtools counts them) is a plain number, such as 2048S", s)
	}
	v, err := ParseSize(num)
	if err != nil {
		return 0, err
	}
	if v > math.MaxInt64/512 {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return v * 512, nil
}
