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

// ImageUses lists the loop devices attached to the regular file path
// (found by the sysfs backing_file, else LOOP_GET_STATUS64, compared by
// device and inode), each mount of one of them, of its partitions or of a
// device mapped on them (kpartx), and each mount whose source is the file
// itself (a FUSE driver opened it). mountsFile is "" for
// /proc/self/mounts. A loop device with mounts is listed once per mount,
// one without as attached.
func ImageUses(path, mountsFile string) ([]ImageUse, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, nil
	}
	if mountsFile == "" {
		mountsFile = "/proc/self/mounts"
	}
	loops := attachedLoops(st.Dev, st.Ino)
	mounts, err := readMounts(mountsFile)
	if err != nil {
		if len(loops) == 0 {
			// Without /proc (a bare chroot) only a FUSE mount goes
			// unseen; an image file stays writable there, as before.
			return nil, nil
		}
		return nil, fmt.Errorf("io: %s: attached to %s, and cannot check whether that is mounted: %w", path, loops[0].dev, err)
	}
	var uses []ImageUse
	for _, l := range loops {
		n := len(uses)
		for _, m := range mounts {
			var ms unix.Stat_t
			if !strings.HasPrefix(m.source, "/") || unix.Stat(m.source, &ms) != nil || ms.Mode&unix.S_IFMT != unix.S_IFBLK {
				continue
			}
			for _, p := range l.parts {
				if p.rdev == ms.Rdev {
					uses = append(uses, ImageUse{Loop: l.dev, Start: p.start, End: p.end, Source: m.source, Mount: m.point})
					break
				}
			}
		}
		if len(uses) == n {
			uses = append(uses, ImageUse{Loop: l.dev, Start: l.parts[0].start, End: l.parts[0].end, Source: l.dev})
		}
	}
	for _, m := range mounts {
		// A FUSE driver names its source as it was given, which may be
		// relative to where it was started: resolved from here, it still
		// finds the file when both were started in one folder.
		var ms unix.Stat_t
		if !strings.HasPrefix(m.source, "/") && !strings.HasPrefix(m.fstype, "fuse") {
			continue // "proc", "tmpfs": no file here by those names is meant
		}
		if unix.Stat(m.source, &ms) == nil && ms.Mode&unix.S_IFMT == unix.S_IFREG && ms.Dev == st.Dev && ms.Ino == st.Ino {
			uses = append(uses, ImageUse{Start: 0, End: -1, Source: m.source, Mount: m.point})
		}
	}
	return uses, nil
}

// CheckImageWrite refuses to write an image file a mount uses (see
// ImageUses), as Open does, for a caller that changes the file before
// opening it (extends it, say). It returns the warnings Open would give
// (Device.Warnings).
func CheckImageWrite(path, mountsFile string) ([]string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, nil
	}
	return checkImageUse(path, 0, 1<<62, mountsFile)
}

// mountEntry is one line of the mounts file.
type mountEntry struct{ source, point, fstype string }

// readMounts reads a mounts file (/proc/self/mounts's format).
func readMounts(name string) ([]mountEntry, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 3 {
			out = append(out, mountEntry{unescapeMount(fields[0]), unescapeMount(fields[1]), fields[2]})
		}
	}
	return out, sc.Err()
}

// loopDev is a loop device attached to a file: parts[0] is the device
// itself, then its partitions and the devices mapped on them, each with
// the byte range of the file it covers.
type loopDev struct {
	dev   string
	parts []loopPart
}

type loopPart struct {
	rdev       uint64
	start, end int64
}

// attachedLoops finds the loop devices whose backing file is the file
// (dev, ino), from sysfs.
func attachedLoops(dev, ino uint64) []loopDev {
	dirs, _ := filepath.Glob("/sys/block/loop*")
	var out []loopDev
	for _, dir := range dirs {
		name := filepath.Base(dir)
		b, err := os.ReadFile(filepath.Join(dir, "loop", "backing_file"))
		if err != nil {
			continue // not attached
		}
		if !backedBy(name, strings.TrimSuffix(strings.TrimSpace(string(b)), " (deleted)"), dev, ino) {
			continue
		}
		off := sysfsInt(filepath.Join(dir, "loop", "offset"))
		self, ok := sysfsDev(dir)
		if !ok {
			continue
		}
		end := int64(-1) // a size sysfs does not give: to the file's end
		if n := sysfsInt(filepath.Join(dir, "size")); n > 0 {
			end = off + n*512
		}
		l := loopDev{dev: "/dev/" + name, parts: []loopPart{{self, off, end}}}
		l.parts = append(l.parts, holders(dir, l.parts[0])...)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			pdir := filepath.Join(dir, e.Name())
			if _, err := os.Stat(filepath.Join(pdir, "partition")); err != nil {
				continue
			}
			rdev, ok := sysfsDev(pdir)
			if !ok {
				continue
			}
			s := off + sysfsInt(filepath.Join(pdir, "start"))*512
			p := loopPart{rdev, s, end}
			if n := sysfsInt(filepath.Join(pdir, "size")); n > 0 {
				p.end = s + n*512
			}
			l.parts = append(l.parts, p)
			l.parts = append(l.parts, holders(pdir, p)...)
		}
		out = append(out, l)
	}
	return out
}

// holders are the devices mapped on the block device of sysfs folder dir
// (kpartx's /dev/mapper/loop0p1, a dm-crypt volume), taken to cover all
// that it covers.
func holders(dir string, p loopPart) []loopPart {
	ents, _ := os.ReadDir(filepath.Join(dir, "holders"))
	var out []loopPart
	for _, e := range ents {
		if rdev, ok := sysfsDev(filepath.Join("/sys/class/block", e.Name())); ok {
			out = append(out, loopPart{rdev, p.start, p.end})
		}
	}
	return out
}

// backedBy reports whether loop device name's backing file, named back in
// sysfs, is the file (dev, ino). A name that does not resolve here (a
// file in another mount namespace) is asked of the device itself.
func backedBy(name, back string, dev, ino uint64) bool {
	var st unix.Stat_t
	if unix.Stat(back, &st) == nil {
		return st.Dev == dev && st.Ino == ino
	}
	fd, err := unix.Open("/dev/"+name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	info, err := unix.IoctlLoopGetStatus64(fd)
	return err == nil && info.Device == dev && info.Inode == ino
}

// sysfsInt reads a number from a sysfs file (0 if it cannot).
func sysfsInt(p string) int64 {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// sysfsDev reads the device number of a sysfs block device folder.
func sysfsDev(dir string) (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "dev"))
	if err != nil {
		return 0, false
	}
	maj, min, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
	if !ok {
		return 0, false
	}
	M, err1 := strconv.ParseUint(maj, 10, 32)
	m, err2 := strconv.ParseUint(min, 10, 32)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return unix.Mkdev(uint32(M), uint32(m)), true
}

// checkLoopBacking refuses writing [start, start+size) of the loop device
// (or partition of one) rdev while the file behind it is mounted another
// way: through another loop device over the same bytes, or by a FUSE
// driver. The kernel's exclusive open only knows the device itself, and
// checkMounted its own mounts. A device that is no loop device, or whose
// file cannot be found here (another mount namespace), passes.
func checkLoopBacking(path string, rdev uint64, start, size int64, mountsFile string) error {
	dir, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(rdev), unix.Minor(rdev)))
	if err != nil {
		return nil
	}
	var off int64
	loopDir := dir
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		off = sysfsInt(filepath.Join(dir, "start")) * 512
		loopDir = filepath.Dir(dir)
	}
	b, err := os.ReadFile(filepath.Join(loopDir, "loop", "backing_file"))
	if err != nil {
		return nil // not a loop device
	}
	back := strings.TrimSuffix(strings.TrimSpace(string(b)), " (deleted)")
	off += sysfsInt(filepath.Join(loopDir, "loop", "offset"))
	self := "/dev/" + filepath.Base(loopDir)
	uses, err := ImageUses(back, mountsFile)
	if err != nil {
		return nil
	}
	for _, u := range uses {
		if u.Mount == "" || u.Loop == self || !u.Overlaps(off+start, size) {
			continue
		}
		return fmt.Errorf("io: %s: the file behind it, %s, is in use: %s; unmount it first: %w", path, back, u, ErrMounted)
	}
	return nil
}
