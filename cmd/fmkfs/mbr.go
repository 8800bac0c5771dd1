package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// mbrMode is --mbr[=y|n|a], mkfs.fat's fake MBR: "y" write it, "n" do
// not, "a" (or not given) only on a whole non-removable disk. Alone,
// --mbr means yes: the flag reads as a boolean that takes a value.
type mbrMode struct{ mode string }

func (m *mbrMode) Set(s string) error {
	switch strings.ToLower(s) {
	case "y", "yes", "true":
		m.mode = "y"
	case "n", "no", "false":
		m.mode = "n"
	case "a", "auto":
		m.mode = "a"
	default:
		return fmt.Errorf("want y(es), n(o) or a(uto), not %q", s)
	}
	return nil
}

func (m *mbrMode) String() string { return m.mode }

// IsBoolFlag lets --mbr stand alone (Go's flag package reads it as
// --mbr=true).
func (m *mbrMode) IsBoolFlag() bool { return true }

// wantMBR decides --mbr for a target: yes, no, or in auto mode yes only
// for a whole disk (not a partition, not an image file) that is not
// removable, as mkfs.fat decides.
func wantMBR(mode, path string) bool {
	switch mode {
	case "y":
		return true
	case "n":
		return false
	}
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return false
	}
	sys := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev))
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(sys, "removable"))
	return err == nil && strings.TrimSpace(string(b)) == "0"
}
