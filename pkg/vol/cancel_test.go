package vol

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
	"sync/atomic"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// stopAfter is a context that is done from its (n+1)-th look on: it
// cancels at the n-th cancellation point an operation passes, counted,
// not timed (FAT's check looks from two goroutines).
type stopAfter struct {
	context.Context
	n     int64
	looks atomic.Int64
}

func newStopAfter(n int) *stopAfter { return &stopAfter{Context: context.Background(), n: int64(n)} }

func (c *stopAfter) Err() error {
	if c.looks.Add(1) > c.n {
		return context.Canceled
	}
	return nil
}

// cancelled is a context cancelled up front.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// bytesDevice opens a device on a copy of img.
func bytesDevice(t *testing.T, img []byte) (*fio.Device, []byte) {
	t.Helper()
	b := slices.Clone(img)
	dev, err := fio.NewBytesDevice(b, fio.SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return dev, b
}

// damagedImages are images(t) with a tree of files, left dirty (no
// Close) and with a lost cluster: the last cluster marked in use in the
// FAT (FAT) or the bitmap (exFAT) with nothing naming it.
func damagedImages(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for kind, img := range images(t) {
		dev, b := bytesDevice(t, img)
		v, err := Open(dev)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"a", "a/b", "c"} {
			if err := v.Mkdir(d, stamp); err != nil {
				t.Fatal(err)
			}
			for i, n := range []string{"x.txt", "y.bin"} {
				write(t, v, d+"/"+n, bytes.Repeat([]byte{byte('0' + i)}, 5000*(i+1)))
			}
		}
		if err := v.Commit(); err != nil { // the dirty bit stays
			t.Fatal(err)
		}
		last := v.Clusters() + 1
		if f := AsFAT(v); f != nil {
			// And c/x.txt's chain goes on into a/y.bin's: its first
			// cluster links to y.bin's fourth (its size still right).
			first := func(name string) uint32 {
				fi, err := v.Stat(name)
				if err != nil {
					t.Fatal(err)
				}
				return v.Entry(fi).FirstCluster
			}
			x, y := first("c/x.txt"), first("a/y.bin")
			if v.ClusterSize() != 2048 {
				t.Fatalf("FAT16: %d-byte clusters, want 2048", v.ClusterSize())
			}
			l := f.Layout()
			for i := 0; i < l.NumFATs; i++ {
				for c, next := range map[uint32]uint32{last: 0xFFFF, x: y + 3} {
					if _, err := dev.WriteAt([]byte{byte(next), byte(next >> 8)}, l.FATCopyOffset(i)+2*int64(c)); err != nil {
						t.Fatal(err)
					}
				}
			}
		} else {
			d, err := Describe(v)
			if err != nil {
				t.Fatal(err)
			}
			i := int64(last - 2)
			off := v.ClusterOffset(d.ExFAT.BitmapCluster) + i/8
			if _, err := dev.WriteAt([]byte{b[off] | 1<<(i%8)}, off); err != nil {
				t.Fatal(err)
			}
		}
		out[kind] = b
	}
	return out
}

// kinds lists the kinds of a report's problems.
func kinds(rep *Report) []string {
	var k []string
	for _, p := range rep.Problems {
		k = append(k, p.Kind)
	}
	slices.Sort(k)
	return slices.Compact(k)
}

// A cancelled check returns the context's error and writes nothing,
// whether the context was done before it began or is cancelled part way
// from its Progress or Visit callback.
func TestCheckCancelled(t *testing.T) {
	for kind, img := range damagedImages(t) {
		t.Run(kind, func(t *testing.T) {
			dev, b := bytesDevice(t, img)
			rep, err := Check(dev, CheckOptions{})
			if err != nil || rep.Clean() {
				t.Fatalf("the damaged image: %+v, %v", rep, err)
			}
			rep.Close()
			steps, visits := 0, 0
			if _, err := Check(dev, CheckOptions{Progress: func(string) { steps++ }, Visit: func(string) { visits++ }}); err != nil {
				t.Fatal(err)
			}
			if steps < 2 || visits < 5 {
				t.Fatalf("%d steps, %d visits: too few to cancel part way", steps, visits)
			}
			var stop func() // the running check's cancel
			seen := 0
			for name, o := range map[string]CheckOptions{
				"up front":      {Context: cancelled()},
				"from Progress": {Progress: func(string) { seen++; stop() }},
				"from Visit":    {Visit: func(string) { seen++; stop() }},
			} {
				ctx, cancel := context.WithCancel(context.Background())
				if o.Context == nil {
					o.Context, stop = ctx, cancel
				}
				seen = 0
				rep, err := Check(dev, o)
				if !errors.Is(err, context.Canceled) || rep != nil {
					t.Errorf("%s: %v, %+v; want context.Canceled", name, err, rep)
				}
				if name != "up front" && seen != 1 {
					t.Errorf("%s: the callback was called %d times: the check went on past the cancel", name, seen)
				}
				cancel()
				if !bytes.Equal(b, img) {
					t.Fatalf("%s: the cancelled check wrote", name)
				}
			}
			// Cancelled at each of its points in turn (the FAT copies'
			// chunks, each step and directory), it stops there.
			for n := 0; ; n++ {
				rep, err := Check(dev, CheckOptions{Context: newStopAfter(n)})
				if err == nil {
					if n < 5 {
						t.Fatalf("the check ended at cancellation point %d: too few", n)
					}
					rep.Close()
					break
				}
				if !errors.Is(err, context.Canceled) || n > 1000 {
					t.Fatalf("cancelled at point %d: %v", n, err)
				}
			}
			if !bytes.Equal(b, img) {
				t.Fatal("a cancelled check wrote")
			}
		})
	}
}

// A repair cancelled at each of its cancellation points in turn returns
// the context's error and leaves what a power cut there would: nothing
// written when cancelled before its first write; otherwise a volume whose
// check finds no kind of problem the first one did not, and that a new
// Check and Repair make clean.
func TestRepairCancelled(t *testing.T) {
	for kind, img := range damagedImages(t) {
		t.Run(kind, func(t *testing.T) {
			dev, _ := bytesDevice(t, img)
			rep, err := Check(dev, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := kinds(rep)
			rep.Close()
			wrote := 0 // the points cancelled at after a write
			for n := 0; ; n++ {
				if n > 1000 {
					t.Fatal("the repair never ends")
				}
				dev, b := bytesDevice(t, img)
				rep, err := Check(dev, CheckOptions{})
				if err != nil {
					t.Fatal(err)
				}
				_, err = Repair(rep, RepairOptions{Context: newStopAfter(n)})
				rep.Close()
				if err == nil {
					// exFAT's points include one after its batch; FAT's
					// copies of shared clusters wait in the device's
					// buffer until the FAT's write, which no cancel
					// interrupts.
					if n < 2 || (kind == "exFAT" && wrote == 0) {
						t.Fatalf("the repair ended at cancellation point %d, %d after a write: too few points", n, wrote)
					}
					t.Logf("%d cancellation points, %d after a write", n, wrote)
					break
				}
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled at point %d: %v, want context.Canceled", n, err)
				}
				if !bytes.Equal(b, img) {
					if n == 0 {
						t.Fatal("cancelled before it began, the repair wrote")
					}
					wrote++
				}
				again, err := Check(dev, CheckOptions{})
				if err != nil {
					t.Fatalf("point %d: %v", n, err)
				}
				for _, k := range kinds(again) {
					if !slices.Contains(want, k) {
						t.Errorf("point %d: a new kind of problem %q after the cancel: %v", n, k, again.Problems)
					}
				}
				if _, err := Repair(again, RepairOptions{}); err != nil {
					t.Fatalf("point %d: repairing again: %v", n, err)
				}
				again.Close()
				if final, err := Check(dev, CheckOptions{}); err != nil || !final.Clean() {
					t.Fatalf("point %d: after the second repair: %v, %v", n, final.Problems, err)
				}
			}
		})
	}
}

// Trim cancelled up front discards nothing; cancelled after its first
// discard it stops there, and the volume checks clean with its files.
func TestTrimCancelled(t *testing.T) {
	for _, kind := range []string{"FAT32", "exFAT"} {
		t.Run(kind, func(t *testing.T) {
			dev, files := trimVolume(t, kind)
			before := image(t, dev)
			if _, err := Trim(dev, TrimOptions{Context: cancelled()}); !errors.Is(err, context.Canceled) {
				t.Fatalf("up front: %v, want context.Canceled", err)
			}
			if !bytes.Equal(before, image(t, dev)) {
				t.Fatal("a trim cancelled up front wrote")
			}
			all, err := Trim(dev, TrimOptions{DryRun: true})
			if err != nil || all.Runs < 2 {
				t.Fatalf("dry run: %+v, %v: too few runs to cancel part way", all, err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := Trim(dev, TrimOptions{Context: ctx, Visit: func(uint32, uint32, int64, int64) { cancel() }})
			if !errors.Is(err, context.Canceled) || res == nil || res.Runs != 1 || dev.Stats().DiscardRequests != 1 {
				t.Fatalf("cancelled after the first run: %+v, %v, %d discards", res, err, dev.Stats().DiscardRequests)
			}
			checkClean(t, dev, "after the cancelled trim")
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			for i, name := range []string{"A.BIN", "C.BIN"} {
				got, err := fs.ReadFile(v, name)
				if want := files[2*i]; err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s after the cancelled trim: %d bytes, %v", name, len(got), err)
				}
			}
		})
	}
}

// Format cancelled up front writes nothing; cancelled once the old
// signatures are cleared, or after the discard, it leaves a device that
// claims no file system (the old one's boot sector is gone, no new one
// is written); then a format to the end makes the volume.
func TestFormatCancelled(t *testing.T) {
	for kind, img := range damagedImages(t) {
		t.Run(kind, func(t *testing.T) {
			o := FormatOptions{FAT: &FATParams{Type: 16}, Now: stamp}
			dev, b := bytesDevice(t, img)
			o.Context = cancelled()
			if _, err := Format(dev, o); !errors.Is(err, context.Canceled) {
				t.Fatalf("up front: %v, want context.Canceled", err)
			}
			if !bytes.Equal(b, img) {
				t.Fatal("a format cancelled up front wrote")
			}
			for n, discard := range []bool{false, true} {
				dev, _ := bytesDevice(t, img)
				o.Discard, o.Context = discard, newStopAfter(n+1)
				f, err := Format(dev, o)
				if !errors.Is(err, context.Canceled) || len(f.Wiped) == 0 || (f.Discard != nil) != discard {
					t.Fatalf("cancelled at point %d: %+v, %v", n+1, f, err)
				}
				if v, err := Open(dev); err == nil {
					t.Fatalf("cancelled at point %d: the device opens as %s", n+1, v.Type())
				}
				o.Context = nil
				if f, err := Format(dev, o); err != nil || f.Type != "FAT16" {
					t.Fatalf("the format after: %+v, %v", f, err)
				}
				if rep, err := Check(dev, CheckOptions{}); err != nil || !rep.Clean() {
					t.Fatalf("the format after: %v, %v", rep.Problems, err)
				}
			}
		})
	}
}

// A copy into a Writer through ContextReader stops between two reads of
// its source once the context is cancelled; aborted, the Writer leaves
// the file it was to replace as it was, and the volume checks clean.
func TestCopyCancelled(t *testing.T) {
	for kind, img := range images(t) {
		t.Run(kind, func(t *testing.T) {
			dev, _ := bytesDevice(t, img)
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			old := []byte("the old contents")
			write(t, v, "f.bin", old)
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			free := v.FreeClusters()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src := &cancelAt{r: bytes.NewReader(bytes.Repeat([]byte("x"), 8<<20)), at: 1 << 20, cancel: cancel}
			w, err := v.Create("f.bin", 0, stamp)
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(w, ContextReader(ctx, src))
			if !errors.Is(err, context.Canceled) || n < 1<<20 || n >= 8<<20 {
				t.Fatalf("copied %d bytes: %v, want context.Canceled part way", n, err)
			}
			w.Abort()
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if v.FreeClusters() != free {
				t.Errorf("free clusters %d after the cancelled copy, %d before", v.FreeClusters(), free)
			}
			checkClean(t, dev, "after the cancelled copy")
			v, err = Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := fs.ReadFile(v, "f.bin"); err != nil || !bytes.Equal(got, old) {
				t.Fatalf("f.bin after the cancelled copy: %q, %v", got, err)
			}
		})
	}
}

// cancelAt reads r and calls cancel once at bytes have been read.
type cancelAt struct {
	r      io.Reader
	at     int64
	n      int64
	cancel func()
}

func (c *cancelAt) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n >= c.at {
		c.cancel()
	}
	return n, err
}
