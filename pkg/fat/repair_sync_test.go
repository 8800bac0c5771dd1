package fat

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// spreadDamage builds a FAT32 volume whose FAT spans many windows, with
// two files cross-linked (the second gets copies of the shared clusters,
// linked in from its chain on disk: a link held for phaseEntries) and
// entries damaged all over FAT 1, FAT 2 or both (lost chains, links out
// of chains, bad marks).
func spreadDamage(t *testing.T, seed uint64) []byte {
	t.Helper()
	// 131,000-odd clusters of 512 bytes: a FAT of 8 windows.
	img, l, first := chainsImage(t, 64<<20, 40)
	patchEntry(img, l, first["B.BIN"]+3, first["A.BIN"]+5, 0, 1) // B runs into A's chain
	rng := rand.New(rand.NewPCG(seed, 1))
	for k := 0; k < 400; k++ {
		c := Cluster(2 + rng.Uint32N(l.Clusters))
		var val Cluster
		switch rng.IntN(4) {
		case 0:
			val = eoc32
		case 1:
			val = Cluster(2 + rng.Uint32N(l.Clusters))
		case 2:
			val = bad32
		default:
			val = c + 1
		}
		copies := [][]int{{0}, {1}, {0, 1}}[rng.IntN(3)]
		patchEntry(img, l, c, val, copies...)
	}
	return img
}

// The repair streams the FATs and writes changed windows early when more
// of them change than stay in memory: the result is the same, byte for
// byte, as with every window in memory and the tables read in one piece.
func TestRepairStreamsFAT(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		for _, salvage := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed=%d,salvage=%v", seed, salvage), func(t *testing.T) {
				img := spreadDamage(t, seed)
				repair := func(windows int, chunk int64) ([]byte, int) {
					small(t, &fatMaxResident, windows)
					small(t, &syncChunk, chunk)
					dev := memDevice(t, img)
					v, bootErr, err := OpenForCheck(dev)
					if err != nil {
						t.Fatal(err)
					}
					v.Clock = func() time.Time { return checkClock } // the saved chains' entries' times
					rep, err := Check(v, CheckOptions{Salvage: salvage, BootError: bootErr})
					if err != nil {
						t.Fatal(err)
					}
					if !hasKind(rep, KindFATCopies) || !hasKind(rep, KindCrossLink) || rep.LostChains < 50 {
						t.Fatalf("the damage is not what the test wants:\n%s", dumpProblems(rep))
					}
					tb := v.table
					if _, err := Repair(v, rep, RepairOptions{}); err != nil {
						t.Fatalf("Repair: %v\n%s", err, dumpProblems(rep))
					}
					if rep.Remaining() != 0 {
						t.Fatalf("left: %v", rep.Left)
					}
					return memBytes(t, dev), tb.spills
				}
				whole, spills := repair(1000, 1<<30)
				if spills != 0 {
					t.Fatalf("%d spills with every window in memory", spills)
				}
				streamed, spills := repair(2, 4096)
				if spills == 0 {
					t.Fatal("no window was written early")
				}
				if i := firstDiff(whole, streamed); i >= 0 {
					t.Fatalf("the streamed repair differs at byte %d", i)
				}
				v := mustClean(t, streamed)
				l := v.Layout()
				if !bytes.Equal(streamed[l.FATCopyOffset(0):l.FATCopyOffset(1)], streamed[l.FATCopyOffset(1):l.FATCopyOffset(2)]) {
					t.Fatal("the FATs differ after the repair")
				}
			})
		}
	}
}

// The plan's table holds entries planned free as bits and the others in a
// map: whatever order entries are planned in, Get, each and scan agree
// with a plain record of the last value planned for each.
func TestPlanTableFreedBits(t *testing.T) {
	img := buildCheckImage(t, checkParams["FAT32"])
	v, err := Open(memDevice(t, img))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	pt := newPlanTable(v.table)
	defer pt.release()
	n := pt.Entries()
	want := map[Cluster]Cluster{}
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 5000; k++ {
		c := Cluster(rng.Uint32N(n + 3)) // a few out of range, which Set ignores
		val := Cluster(0)
		if rng.IntN(2) == 0 {
			val = Cluster(1 + rng.Uint32N(n))
		}
		pt.Set(c, val)
		if uint32(c) < n {
			want[c] = val
		}
	}
	got := map[Cluster]Cluster{}
	pt.each(0, Cluster(n), func(c, val Cluster) {
		if _, dup := got[c]; dup {
			t.Fatalf("each gives entry %d twice", c)
		}
		got[c] = val
	})
	if len(got) != len(want) {
		t.Fatalf("each gives %d entries, want %d", len(got), len(want))
	}
	for c, val := range want {
		if got[c] != val || pt.Get(c) != val {
			t.Fatalf("entry %d: each %#x, Get %#x, want %#x", c, got[c], pt.Get(c), val)
		}
	}
	for k := 0; k < 200; k++ {
		lo := Cluster(rng.Uint32N(n))
		hi := lo + Cluster(rng.Uint32N(200))
		in := 0
		for c := range want {
			if c >= lo && c < hi {
				in++
			}
		}
		pt.each(lo, hi, func(c, _ Cluster) {
			if c < lo || c >= hi {
				t.Fatalf("each(%d, %d) gives entry %d", lo, hi, c)
			}
			in--
		})
		if in != 0 {
			t.Fatalf("each(%d, %d) misses %d entries", lo, hi, in)
		}
	}
	scanTable(pt, func(first Cluster, vals []uint32) {
		for i, x := range vals {
			c := first + Cluster(i)
			if x != uint32(pt.Get(c)) {
				t.Fatalf("scan gives entry %d as %#x, Get %#x", c, x, pt.Get(c))
			}
		}
	})
}
