package vol

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"sync"
	"testing"
)

// version is the content of file name at version k: long enough to span
// several clusters, and telling its version in its first bytes.
func version(name string, k int) []byte {
	return bytes.Repeat([]byte(fmt.Sprintf("%s v%04d|", name, k)), 900+37*k%500)
}

// checkVersion says whether b is one whole version of name, and which.
func checkVersion(name string, b []byte) (int, bool) {
	pre := []byte(name + " v")
	if !bytes.HasPrefix(b, pre) || len(b) < len(pre)+4 {
		return 0, false
	}
	k, err := strconv.Atoi(string(b[len(pre) : len(pre)+4]))
	return k, err == nil && bytes.Equal(b, version(name, k))
}

// Eight goroutines read (fs.ReadFile, ReadDir, Stat) while one writes
// (new files, files replaced, commits) on one volume of each file system:
// under -race nothing races, and every read gives one whole version of
// the file (as it was, or as its writer closed it), or ErrChanged when
// the file was replaced while open, never a mix.
func TestReadersAndWriter(t *testing.T) {
	const files, rounds, readers = 12, 40, 8
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			if err := v.Mkdir("d", stamp); err != nil {
				t.Fatal(err)
			}
			name := func(i int) string { return fmt.Sprintf("d/f%02d.bin", i) }
			for i := range files {
				write(t, v, name(i), version(name(i), 0))
			}
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, readers+1)
			wg.Add(1)
			go func() { // the writer
				defer wg.Done()
				for r := 1; r <= rounds; r++ {
					n := name(r % files)
					w, err := v.Create(n, 0, stamp)
					if err != nil {
						errs <- err
						return
					}
					if _, err := w.Write(version(n, r)); err != nil {
						errs <- err
						return
					}
					if err := w.Close(); err != nil {
						errs <- err
						return
					}
					if err := v.MkdirAll(fmt.Sprintf("d/new%02d", r), stamp); err != nil {
						errs <- err
						return
					}
					if r%3 == 0 {
						if err := v.Commit(); err != nil {
							errs <- err
							return
						}
					}
				}
			}()
			for g := range readers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						n := name((g + r) % files)
						b, err := fs.ReadFile(v, n)
						if errors.Is(err, ErrChanged) {
							continue // replaced while open: read it again later
						}
						if err != nil {
							errs <- fmt.Errorf("reader %d: %s: %w", g, n, err)
							return
						}
						if _, ok := checkVersion(n, b); !ok {
							errs <- fmt.Errorf("reader %d: %s: %d bytes that are no whole version of the file", g, n, len(b))
							return
						}
						if _, err := v.ReadDir("d"); err != nil {
							errs <- fmt.Errorf("reader %d: readdir: %w", g, err)
							return
						}
						if _, err := v.Stat(n); err != nil {
							errs <- fmt.Errorf("reader %d: stat %s: %w", g, n, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			// Every file ends at its last version.
			for i := range files {
				b, err := fs.ReadFile(v, name(i))
				if err != nil {
					t.Fatal(err)
				}
				want := (rounds / files) * files
				for want+i > rounds || want == 0 && i == 0 {
					want -= files
				}
				if k, ok := checkVersion(name(i), b); !ok || k != max(want+i, 0) {
					t.Errorf("%s: version %d (whole %v), want %d", name(i), k, ok, max(want+i, 0))
				}
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A file copied within one volume with io.Copy (which hands the source to
// the Writer's ReadFrom) does not wait for the lock its own copy holds,
// whether the source is a file of the volume or of its ReadAhead.
func TestCopyWithinVolume(t *testing.T) {
	data := version("src.bin", 3)
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			write(t, v, "src.bin", data)
			open := func() fs.File {
				f, err := v.Open("src.bin")
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			ra := v.ReadAhead([]string{"src.bin"}, ReadAheadOptions{})
			defer ra.Close()
			af, err := ra.File(0)
			if err != nil {
				t.Fatal(err)
			}
			for name, src := range map[string]io.Reader{"copy.bin": open(), "ahead.bin": af, "limited.bin": io.LimitReader(open(), 10)} {
				w, err := v.Create(name, 0, stamp)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := io.Copy(w, src); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			for name, want := range map[string][]byte{"copy.bin": data, "ahead.bin": data, "limited.bin": data[:10]} {
				if got, err := fs.ReadFile(v, name); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes, %v", name, len(got), err)
				}
			}
		})
	}
}

// A file open for reading while a writer replaces it reads as it was
// until the writer closes; then its reads fail with ErrChanged (its old
// clusters are the file system's to reuse), never a mix of the two
// versions; opened again it reads as it is now.
func TestReadWhileReplaced(t *testing.T) {
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			old, nw := version("f.bin", 1), version("f.bin", 2)[:5000]
			write(t, v, "f.bin", old)
			f := commitOpen(t, v, "f.bin")
			head := make([]byte, 100)
			if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, old[:100]) {
				t.Fatalf("first read: %q, %v", head, err)
			}
			w, err := v.Create("f.bin", 0, stamp)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(nw); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, old[100:200]) {
				t.Fatalf("read while the writer is open: %q, %v", head, err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			rest, err := io.ReadAll(f)
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("read after the replacement: %d bytes, %v, want ErrChanged", len(rest), err)
			}
			if got, err := fs.ReadFile(v, "f.bin"); err != nil || !bytes.Equal(got, nw) {
				t.Fatalf("reopened: %d bytes, %v", len(got), err)
			}
		})
	}
}

// A file replaced twice while open, the second time into the clusters it
// first had (the volume is full but for one copy, so the allocator wraps
// around to them), with the same size and time, still reads ErrChanged:
// the volume marks it stale at the first change, not at the next read,
// which would find it looking as it was.
func TestReadAfterTwoReplacements(t *testing.T) {
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			one := version("g.bin", 1)
			two := bytes.ToUpper(one) // same size, other bytes
			write(t, v, "g.bin", one)
			need := (int64(len(one)) + v.ClusterSize() - 1) / v.ClusterSize()
			if _, err := v.Fallocate("filler", (int64(v.FreeClusters())-need)*v.ClusterSize(), FallocateOptions{NoZero: true}); err != nil {
				t.Fatal(err)
			}
			f := commitOpen(t, v, "g.bin")
			head := make([]byte, 10)
			if _, err := io.ReadFull(f, head); err != nil {
				t.Fatal(err)
			}
			first := func() uint32 {
				fi, err := v.Stat("g.bin")
				if err != nil {
					t.Fatal(err)
				}
				return v.Entry(fi).FirstCluster
			}
			was := first()
			for _, b := range [][]byte{one, two} {
				write(t, v, "g.bin", b)
				if err := v.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			if first() != was {
				t.Fatalf("the second replacement did not reuse the first clusters (%d, then %d): the test shows nothing", was, first())
			}
			rest, err := io.ReadAll(f)
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("read after two replacements: %q..., %v, want ErrChanged", rest[:min(len(rest), 12)], err)
			}
		})
	}
}

// commitOpen commits v and opens name for reading.
func commitOpen(t *testing.T, v Volume, name string) fs.File {
	t.Helper()
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	f, err := v.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
