package exfat

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// TestPlanSDTable holds PlanSD to the SD specification's SDXC rows and
// refuses cards outside SDXC.
func TestPlanSDTable(t *testing.T) {
	for _, tc := range []struct {
		bytes   int64
		cluster int64
		bu      int64
	}{
		{32<<30 + 512, 128 << 10, 16 << 20},
		{64e9, 128 << 10, 16 << 20},
		{128 << 30, 128 << 10, 16 << 20},
		{128<<30 + 512, 256 << 10, 32 << 20},
		{256e9, 256 << 10, 32 << 20},
		{512 << 30, 256 << 10, 32 << 20},
		{1e12, 512 << 10, 64 << 20},
		{2 << 40, 512 << 10, 64 << 20},
	} {
		l, err := PlanSD(tc.bytes / 512)
		if err != nil {
			t.Fatalf("%d bytes: %v", tc.bytes, err)
		}
		if l.ClusterSize != tc.cluster || l.BU != tc.bu || SDBoundaryUnit(tc.bytes/512*512) != tc.bu {
			t.Errorf("%d bytes: cluster %d BU %d, want %d and %d", tc.bytes, l.ClusterSize, l.BU, tc.cluster, tc.bu)
		}
	}
	for _, b := range []int64{32 << 30, 16 << 30, 2<<40 + 512} {
		if _, err := PlanSD(b / 512); err == nil {
			t.Errorf("%d bytes: PlanSD accepted a card outside SDXC", b)
		}
	}
}

// TestSDXCCards formats sparse images of 64 GB, 128 GB, 256 GB and 1 TB
// cards with an MBR and the SD layout, writes a file, checks the layout
// against the table (partition, FAT and heap on BU boundaries, FAT within
// the first BU of the partition) and runs fsck.exfat on the partition
// through a loop device.
func TestSDXCCards(t *testing.T) {
	for _, card := range []int64{64e9, 128e9, 256e9, 1e12} {
		t.Run(fmt.Sprintf("%dGB", card/1e9), func(t *testing.T) {
			sectors := card / 512
			img := newImage(t, sectors*512)
			l, err := PlanSD(sectors)
			if err != nil {
				t.Fatal(err)
			}
			disk := openDev(t, img, true)
			if err := fio.WritePartitionTable(disk, fio.TableSpec{Kind: "mbr", Start: l.PartitionStart * 512, Size: l.PartitionSize * 512, MBRType: l.MBRType}); err != nil {
				t.Fatal(err)
			}
			disk.Close()
			dev, err := fio.Open(img, fio.Options{Write: true, Partition: 1, Buffered: true})
			if err != nil {
				t.Fatal(err)
			}
			p := l.Params
			p.Serial, p.Label = 0xC0FFEE, "SDXC"
			bs, lay, err := Format(dev, p, testTime)
			if err != nil {
				t.Fatal(err)
			}
			bu := l.BU
			start := l.PartitionStart * 512
			switch {
			case start%bu != 0:
				t.Errorf("partition starts at byte %d, not on a %d-byte BU", start, bu)
			case (start+lay.HeapOffset)%bu != 0:
				t.Errorf("cluster heap at byte %d of the card, not on a BU", start+lay.HeapOffset)
			case lay.FATOffset < bu/2 || lay.FATOffset+lay.FATSize > bu:
				t.Errorf("FAT at %d+%d, not within the partition's first BU", lay.FATOffset, lay.FATSize)
			case lay.ClusterSize != l.ClusterSize || bs.PartitionOffset != uint64(l.PartitionStart):
				t.Errorf("cluster %d, partition offset %d", lay.ClusterSize, bs.PartitionOffset)
			}
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			v.Clock = func() time.Time { return testTime }
			if err := v.MkdirAll("DCIM/100MEDIA", testTime); err != nil {
				t.Fatal(err)
			}
			clip := pattern(7, 3<<20)
			writeFile(t, v, "DCIM/100MEDIA/clip.mp4", clip, int64(len(clip)))
			closeVol(t, v)
			loopFsck(t, img, start, l.PartitionSize*512)
		})
	}
}

// loopFsck attaches [off, off+size) of img to a loop device and runs
// fsck.exfat -n on it.
func loopFsck(t *testing.T, img string, off, size int64) {
	t.Helper()
	out, err := exec.Command(voltest.NeedTool(t, "losetup"), "--find", "--show", "--offset", fmt.Sprint(off), "--sizelimit", fmt.Sprint(size), img).CombinedOutput()
	if err != nil {
		t.Fatalf("losetup: %v\n%s", err, out)
	}
	loop := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command(voltest.NeedTool(t, "losetup"), "-d", loop).Run() })
	fsckClean(t, loop)
	dev := openDev(t, loop, false)
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	if got := dumpFree(t, loop); got != v.FreeClusters() {
		t.Errorf("dump.exfat counts %d free clusters, ftools %d", got, v.FreeClusters())
	}
}
