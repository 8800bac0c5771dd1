package vol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

// trimVolume formats a memory device of kind, fills every byte of its
// data area with 0xEE, writes three files and removes the middle one,
// so that the free clusters hold old data.
func trimVolume(t *testing.T, kind string) (*fio.Device, [][]byte) {
	t.Helper()
	dev := fio.NewMemDevice(64<<20, 512)
	var err error
	if kind == "exFAT" {
		_, _, err = exfat.Format(dev, exfat.FormatParams{Size: 64 << 20, Serial: 1}, stamp)
	} else {
		_, _, err = fat.Format(dev, fat.FormatParams{Size: 64 << 20, Type: fat.FAT32, AllowSmallFAT32: true}, stamp)
	}
	if err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	// Old data everywhere free (past the root directory's cluster).
	old := bytes.Repeat([]byte{0xEE}, int(v.ClusterSize()))
	for c := uint32(8); c < v.Clusters()+2; c++ {
		if _, err := dev.WriteAt(old, v.ClusterOffset(c)); err != nil {
			t.Fatal(err)
		}
	}
	files := [][]byte{bytes.Repeat([]byte("a"), 300000), bytes.Repeat([]byte("b"), 500000), bytes.Repeat([]byte("c"), 70000)}
	for i, d := range files {
		write(t, v, string(rune('A'+i))+".BIN", d)
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := v.Remove("B.BIN"); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	return dev, files
}

func image(t *testing.T, dev *fio.Device) []byte {
	t.Helper()
	b := make([]byte, dev.Size())
	if _, err := dev.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return b
}

// Trim discards every free cluster and nothing else: afterwards each free
// cluster reads as zeros (a memory device's discard), the files read
// back, and the check is clean. --minimum leaves short runs, --dry-run
// changes nothing.
func TestTrim(t *testing.T) {
	for _, kind := range []string{"FAT32", "exFAT"} {
		t.Run(kind, func(t *testing.T) {
			dev, files := trimVolume(t, kind)
			before := image(t, dev)
			res, err := Trim(dev, TrimOptions{DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, image(t, dev)) || res.Runs == 0 || res.Type != kind {
				t.Fatalf("dry run: %+v, image changed %v", res, !bytes.Equal(before, image(t, dev)))
			}
			big, err := Trim(dev, TrimOptions{Minimum: 64 << 20})
			if err != nil || big.Runs != 0 || big.Skipped != res.Runs || !bytes.Equal(before, image(t, dev)) {
				t.Fatalf("--minimum past every run: %+v, %v", big, err)
			}
			res, err = Trim(dev, TrimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if res.FreeClusters != int64(v.FreeClusters()) || res.Bytes != res.FreeClusters*v.ClusterSize() || res.Runs < 2 {
				t.Errorf("result %+v; the volume has %d free clusters", res, v.FreeClusters())
			}
			if st := dev.Stats(); st.DiscardRequests != int64(res.Runs) {
				t.Errorf("%d discards for %d runs", st.DiscardRequests, res.Runs)
			}
			after := image(t, dev)
			zeroed := 0
			for c := uint32(2); c < v.Clusters()+2; c++ {
				off := v.ClusterOffset(c)
				cl := after[off : off+v.ClusterSize()]
				if !bytes.Equal(cl, before[off:off+v.ClusterSize()]) {
					if !bytes.Equal(cl, make([]byte, len(cl))) {
						t.Fatalf("cluster %d changed, not to zeros", c)
					}
					zeroed++
				}
			}
			if zeroed == 0 {
				t.Errorf("no cluster was discarded")
			}
			for i, want := range []int{0, 2} {
				got := readAll(t, v, string(rune('A'+want))+".BIN")
				if !bytes.Equal(got, files[want]) {
					t.Errorf("file %d reads back wrong", i)
				}
			}
		})
	}
}

func readAll(t *testing.T, v Volume, name string) []byte {
	t.Helper()
	f, err := v.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A volume the check finds damaged is refused with nothing written: FAT
// copies that differ, a used cluster the exFAT bitmap marks free.
func TestTrimRefusesDamage(t *testing.T) {
	for _, kind := range []string{"FAT32", "exFAT"} {
		t.Run(kind, func(t *testing.T) {
			dev, _ := trimVolume(t, kind)
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := v.Stat("A.BIN")
			if err != nil {
				t.Fatal(err)
			}
			c := v.Entry(fi).FirstCluster
			if f := AsFAT(v); f != nil {
				// FAT 2 says A.BIN's first cluster is free.
				off := f.Layout().FATCopyOffset(1) + int64(c)*4
				if _, err := dev.WriteAt(make([]byte, 4), off); err != nil {
					t.Fatal(err)
				}
			} else {
				// The bitmap says A.BIN's first cluster is free.
				x := AsExFAT(v)
				bm, _ := x.SystemEntries()
				off := x.Layout().ClusterOffset(bm.FirstCluster) + int64(c-2)/8
				b := make([]byte, 1)
				if _, err := dev.ReadAt(b, off); err != nil {
					t.Fatal(err)
				}
				b[0] &^= 1 << ((c - 2) % 8)
				if _, err := dev.WriteAt(b, off); err != nil {
					t.Fatal(err)
				}
			}
			v.Close()
			before := image(t, dev)
			_, err = Trim(dev, TrimOptions{})
			var de *DamagedError
			if !errors.As(err, &de) || !errors.Is(err, ErrDamaged) {
				t.Fatalf("Trim of a damaged volume: %v", err)
			}
			if !bytes.Equal(before, image(t, dev)) || dev.Stats().DiscardRequests != 0 {
				t.Errorf("the refusal changed the image")
			}
		})
	}
}

// A cluster one FAT copy marks free and another uses is not free: FAT32
// with mirroring off (only FAT 1 active) passes the check with copies
// that differ, and Trim leaves what FAT 2 uses.
func TestTrimEveryFATCopy(t *testing.T) {
	dev, _ := trimVolume(t, "FAT32")
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	f := AsFAT(v)
	l := f.Layout()
	bs := make([]byte, 512)
	if _, err := dev.ReadAt(bs, 0); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint16(bs[40:], 0x80) // ExtFlags: mirroring off, FAT 1 active
	for _, sec := range []int64{0, int64(f.BootSector().BackupBootSector)} {
		if _, err := dev.WriteAt(bs, sec*l.SectorSize); err != nil {
			t.Fatal(err)
		}
	}
	// FAT 2 alone uses the last cluster.
	last := uint32(l.Clusters + 1)
	eoc := make([]byte, 4)
	binary.LittleEndian.PutUint32(eoc, 0x0FFFFFFF)
	if _, err := dev.WriteAt(eoc, l.FATCopyOffset(1)+int64(last)*4); err != nil {
		t.Fatal(err)
	}
	v.Close()
	before := image(t, dev)
	res, err := Trim(dev, TrimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	off := l.ClusterOffset(fat.Cluster(last))
	if after := image(t, dev); !bytes.Equal(after[off:off+l.ClusterSize], before[off:off+l.ClusterSize]) {
		t.Errorf("the cluster FAT 2 uses was discarded")
	}
	if res.Runs == 0 {
		t.Errorf("nothing discarded: %+v", res)
	}
}
