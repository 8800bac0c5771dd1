package fserr

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestSentinelKinds(t *testing.T) {
	fatNoSpace, exNoSpace := ErrNoSpace.In("fat"), ErrNoSpace.In("exfat")
	notFAT, notExFAT := New("fat", "not a FAT file system"), New("exfat", "not an exFAT file system")
	wrapped := fmt.Errorf("writing /a: %w", exNoSpace)
	for _, tc := range []struct {
		err, target error
		want        bool
	}{
		{fatNoSpace, exNoSpace, true},
		{wrapped, fatNoSpace, true},
		{wrapped, ErrNoSpace, true},
		{&NoSpaceError{Need: 2, Free: 1}, fatNoSpace, true},
		{&NoSpaceError{Need: 2, Free: 1}, exNoSpace, true},
		{fatNoSpace, ErrCorrupt, false},
		{ErrCorrupt.In("fat"), ErrCorrupt.In("exfat"), true},
		{notFAT, notExFAT, false},
		{notFAT, notFAT, true},
		{&FormatError{Structure: "FAT", Err: ErrCorrupt.In("fat")}, ErrCorrupt.In("exfat"), true},
		{Paramf("exfat", "too big"), ErrInvalidParams.In("fat"), true},
		{ErrNotDir, fs.ErrNotExist, false},
	} {
		if got := errors.Is(tc.err, tc.target); got != tc.want {
			t.Errorf("errors.Is(%q, %q) = %v, want %v", tc.err, tc.target, got, tc.want)
		}
	}
	if !IsFull(fmt.Errorf("x: %w", ErrDirFull.In("fat"))) || !IsFull(&NoSpaceError{}) || IsFull(ErrCorrupt) {
		t.Error("IsFull does not match the full kinds alone")
	}
}

func TestMessages(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{ErrNoSpace.In("fat"), "fat: no space left on volume"},
		{ErrDirFull.In("exfat"), "exfat: directory is full"},
		{ErrCorrupt, "file system is corrupt"},
		{New("fat", "not a FAT file system"), "fat: not a FAT file system"},
		{&NoSpaceError{Need: 4096, Free: 512}, "no space left on volume: need 4096 bytes, 512 free"},
		{Paramf("exfat", "cluster size %d is too small", 256), "exfat: cluster size 256 is too small"},
		{&FormatError{Structure: "boot sector", Field: "bytes per sector", Offset: 0x0b, Value: 300, Msg: "not a power of two", Err: New("fat", "not a FAT file system")},
			"fat: boot sector: bytes per sector 300 at 0x0b: not a power of two"},
		// The prefix is the first sentinel's in the chain.
		{&FormatError{Structure: "FAT", Field: "cluster chain", Offset: -1, Value: 7, Msg: "loops", Err: fmt.Errorf("%w: cluster chain loops", ErrCorrupt.In("exfat"))},
			"exfat: FAT: cluster chain 7: loops"},
		{&FormatError{Structure: "FAT", Offset: -1}, "FAT"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
