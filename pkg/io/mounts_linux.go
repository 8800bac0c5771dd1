package io

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// checkMounted refuses a block device (major:minor rdev) when it or one of
// its partitions is the source of a mount listed in mountsFile.
func checkMounted(path string, rdev uint64, mountsFile string) error {
	devs := map[uint64]bool{rdev: true}
	for _, p := range partitionDevs(rdev) {
		devs[p] = true
	}
	resolved, _ := filepath.EvalSymlinks(path)
	f, err := os.Open(mountsFile)
	if err != nil {
		return fmt.Errorf("io: %s: cannot check mounts: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !strings.HasPrefix(fields[0], "/") {
			continue
		}
		src, mnt := unescapeMount(fields[0]), unescapeMount(fields[1])
		var st unix.Stat_t
		hit := false
		if unix.Stat(src, &st) == nil {
			hit = st.Mode&unix.S_IFMT == unix.S_IFBLK && devs[st.Rdev]
		} else {
			hit = src == path || (resolved != "" && src == resolved)
		}
		if hit {
			return fmt.Errorf("io: %s: %s is mounted on %s; unmount it first: %w", path, src, mnt, ErrMounted)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("io: %s: reading %s: %w", path, mountsFile, err)
	}
	return nil
}

// partitionDevs lists the device numbers of the partitions of the disk
// rdev, from /sys/dev/block/MAJ:MIN/*/partition.
func partitionDevs(rdev uint64) []uint64 {
	dir := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(rdev), unix.Minor(rdev))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []uint64
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "partition")); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "dev"))
		if err != nil {
			continue
		}
		maj, min, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
		if !ok {
			continue
		}
		M, err1 := strconv.ParseUint(maj, 10, 32)
		m, err2 := strconv.ParseUint(min, 10, 32)
		if err1 == nil && err2 == nil {
			out = append(out, unix.Mkdev(uint32(M), uint32(m)))
		}
	}
	return out
}

// unescapeMount undoes the octal escapes (\040 for a space) of /proc/mounts.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
