package fat

import (
	"bytes"
	"strings"
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
)

// longChainsImage is a FAT32 volume of 512-byte clusters holding /A.BIN and
// /B.BIN, each a contiguous chain of n clusters (longer than claimStride,
// so that finding who holds a cluster follows links to a record), and the
// directory /D. It returns the image, its layout and each member's first
// cluster.
func longChainsImage(t *testing.T, n int) ([]byte, *Layout, map[string]Cluster) {
	return chainsImage(t, 8<<20, n)
}

// smallClusterVolume formats size bytes of memory as a FAT32 volume of
// 512-byte clusters (small enough for a test to make many clusters
// cheaply) and opens it.
func smallClusterVolume(t *testing.T, size int64) (*fio.Device, *Volume) {
	t.Helper()
	dev := memDevice(t, make([]byte, size))
	if _, _, err := Format(dev, FormatParams{Size: size, Type: FAT32, AllowSmallFAT32: true, ClusterSize: 512, VolumeID: 9}, checkClock); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	return dev, v
}

// chainsImage is longChainsImage on a volume of size bytes.
func chainsImage(t *testing.T, size int64, n int) ([]byte, *Layout, map[string]Cluster) {
	t.Helper()
	dev, v := smallClusterVolume(t, size)
	v.Clock = func() time.Time { return checkClock }
	for i, name := range []string{"/A.BIN", "/B.BIN"} {
		w, err := v.Create(name, int64(n)*512, checkClock)
		if err != nil {
			t.Fatal(err)
		}
		// A holds zeros: a directory that runs into it reads empty slots.
		if _, err := w.Write(bytes.Repeat([]byte{[]byte{0, 'b'}[i]}, n*512)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Mkdir("/D", checkClock); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	img := memBytes(t, dev)
	v, err := Open(memDevice(t, img))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	first := map[string]Cluster{}
	for _, name := range []string{"A.BIN", "B.BIN", "D"} {
		_, e := fileEntry(t, v, name)
		first[name] = e.Cluster
	}
	return img, v.Layout(), first
}

// The owner of a cluster two chains share is found by following the
// chain to the next record, however far into a long chain it lies: the
// problems name the right files, as the owner table did.
func TestCheckNamesOwnersInLongChains(t *testing.T) {
	const n = 3000
	for _, tc := range []struct {
		name  string
		patch func(l *Layout, f map[string]Cluster, img []byte)
		kind  string
		want  []string // in the problem's message or paths
	}{
		{"B runs into the middle of A", func(l *Layout, f map[string]Cluster, img []byte) {
			patchEntry(img, l, f["B.BIN"]+1800, f["A.BIN"]+2500, 0, 1)
		}, KindCrossLink, []string{"/B.BIN", "/A.BIN", "number 1802 of the chain"}},
		{"B starts in the middle of A", func(l *Layout, f map[string]Cluster, img []byte) {
			setFirstCluster(t, img, l, "B.BIN", f["A.BIN"]+1500)
		}, KindCrossLink, []string{"/B.BIN", "/A.BIN", "number 1 of the chain"}},
		{"A loops back far", func(l *Layout, f map[string]Cluster, img []byte) {
			patchEntry(img, l, f["A.BIN"]+2900, f["A.BIN"]+10, 0, 1)
		}, KindLoop, []string{"/A.BIN", "loops back to cluster"}},
		{"the directory runs into A", func(l *Layout, f map[string]Cluster, img []byte) {
			patchEntry(img, l, f["D"], f["A.BIN"]+2000, 0, 1)
		}, KindCrossLink, []string{"/D", "/A.BIN", "end the chain of /A.BIN before cluster"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, l, first := longChainsImage(t, n)
			tc.patch(l, first, img)
			_, rep := checkBytes(t, img)
			var found *Problem
			for i := range rep.Problems {
				if rep.Problems[i].Kind == tc.kind {
					found = &rep.Problems[i]
				}
			}
			if found == nil {
				t.Fatalf("no %s problem:\n%s", tc.kind, dumpProblems(rep))
			}
			text := found.Message + " " + strings.Join(found.Paths, " ") + " " + found.Path + " " + found.Fix
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%s problem %q does not say %q\n%s", tc.kind, text, w, dumpProblems(rep))
				}
			}
			// The repair leaves a clean volume, every file whole.
			fixed, rep := repairBytes(t, img, CheckOptions{})
			if rep.Remaining() != 0 {
				t.Fatalf("repair left:\n%s", dumpProblems(rep))
			}
			if _, after := checkBytes(t, fixed); !after.Clean() {
				t.Fatalf("after the repair:\n%s", dumpProblems(after))
			}
		})
	}
}

// setFirstCluster points the root member name's entry at cluster c.
func setFirstCluster(t *testing.T, img []byte, l *Layout, name string, c Cluster) {
	t.Helper()
	v, err := Open(memDevice(t, img))
	if err != nil {
		t.Fatal(err)
	}
	off, _ := fileEntry(t, v, name)
	v.Close()
	putU16(img[off+direntClusterLow:], uint16(c))
	putU16(img[off+direntClusterHigh:], uint16(c>>16))
}
