package io

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// losetup attaches img to a free loop device (extra args such as "-b",
// "4096" go first) and detaches it when the test ends. A missing losetup
// fails the test: loop devices are part of what CI checks.
func losetup(t *testing.T, img string, extra ...string) string {
	t.Helper()
	dev := run(t, "", "losetup", append(extra, "-f", "--show", img)...)
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "-d", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v\n%s", dev, err, out)
		}
	})
	return dev
}

// mountsFile writes a fake /proc/self/mounts.
func mountsFile(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mounts")
	must(t, os.WriteFile(p, []byte(strings.Join(append(lines, ""), "\n")), 0o644))
	return p
}

func TestLoopDevice(t *testing.T) {
	for _, ss := range []int{512, 4096} {
		t.Run(fmt.Sprint(ss), func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "card.img")
			must(t, CreateImage(img, 16<<20))
			dev := losetup(t, img, "-b", fmt.Sprint(ss))
			noMounts := mountsFile(t, "proc /proc proc rw 0 0", "/dev/vda / ext4 rw 0 0")

			d, err := Open(dev, Options{Write: true, MountsFile: noMounts, Sync: SyncClose})
			must(t, err)
			if !d.IsBlockDevice() || d.Size() != 16<<20 || d.SectorSize() != ss || !d.Direct() || d.Align() != ss {
				t.Fatalf("block %v size %d sector %d direct %v align %d", d.IsBlockDevice(), d.Size(), d.SectorSize(), d.Direct(), d.Align())
			}
			msg := []byte("written through the loop device")
			_, err = d.WriteAt(msg, 12345)
			must(t, err)
			got := make([]byte, len(msg))
			_, err = d.ReadAt(got, 12345)
			must(t, err)
			if !bytes.Equal(got, msg) {
				t.Errorf("read back %q", got)
			}
			_, err = d.WriteAt(bytes.Repeat([]byte{0xff}, 1<<20), 1<<20)
			must(t, err)
			must(t, d.Zero(1<<20+100, 500000))
			must(t, d.Close())
			st := d.Stats()
			if st.ZeroRequests != 1 || st.Flushes != 1 {
				t.Errorf("zero requests %d, flushes %d", st.ZeroRequests, st.Flushes)
			}
			raw, err := os.ReadFile(img)
			must(t, err)
			if !bytes.Equal(raw[12345:12345+len(msg)], msg) {
				t.Error("data not in the backing file")
			}
			for i := 1 << 20; i < 2<<20; i++ {
				in := i >= 1<<20+100 && i < 1<<20+100+500000
				if in && raw[i] != 0 || !in && raw[i] != 0xff {
					t.Fatalf("byte %d = %#x after Zero", i, raw[i])
				}
			}

			// Mounted: by path, through a symlink, with an escaped mount point.
			link := filepath.Join(t.TempDir(), "card")
			must(t, os.Symlink(dev, link))
			for _, src := range []string{dev, link} {
				mounts := mountsFile(t, src+` /mnt/my\040card vfat rw 0 0`)
				_, err = Open(dev, Options{Write: true, MountsFile: mounts})
				if !errors.Is(err, ErrMounted) || !strings.Contains(err.Error(), "/mnt/my card") {
					t.Errorf("mounted via %s: %v", src, err)
				}
				ro, err := Open(dev, Options{MountsFile: mounts})
				must(t, err)
				must(t, ro.Close())
			}

			// A whole disk holding a table needs Force; its partition does not.
			lba := 1 << 20 / ss
			run(t, fmt.Sprintf("label: dos\nstart=%d, size=%d, type=c\n", lba, 2*lba), "sfdisk", "--quiet", dev)
			if _, err := Open(dev, Options{Write: true, MountsFile: noMounts}); !errors.Is(err, ErrPartitioned) {
				t.Errorf("whole disk with MBR: %v", err)
			}
			d, err = Open(dev, Options{Write: true, MountsFile: noMounts, Force: true})
			must(t, err)
			must(t, d.Close())
			for _, label := range []string{"dos", "gpt"} {
				typ := ", type=c"
				if label == "gpt" {
					typ = ""
				}
				run(t, fmt.Sprintf("label: %s\nstart=%d, size=%d%s\n", label, lba, 2*lba, typ), "sfdisk", "--quiet", "--wipe", "always", dev)
				d, err = Open(dev, Options{Write: true, MountsFile: noMounts, Partition: 1})
				must(t, err)
				if d.Start() != 1<<20 || d.Size() != 2<<20 {
					t.Errorf("%s on %d-byte sectors: partition 1 start %d size %d", label, ss, d.Start(), d.Size())
				}
				_, err = d.WriteAt([]byte(label), 0)
				must(t, err)
				must(t, d.Close())
				raw, err = os.ReadFile(img)
				must(t, err)
				if string(raw[1<<20:1<<20+len(label)]) != label {
					t.Errorf("%s: partition write not at 1 MiB", label)
				}
				if _, err := Open(dev, Options{Write: true, MountsFile: noMounts}); !errors.Is(err, ErrPartitioned) {
					t.Errorf("whole disk with %s: %v", label, err)
				}
			}
		})
	}
}
