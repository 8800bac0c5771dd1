package io

import (
	"bytes"
	goio "io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// diskDir is a temporary directory on a file system with writeback: on
// tmpfs the page cache is the file, and nothing could be dropped.
func diskDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var sfs unix.Statfs_t
	must(t, unix.Statfs(dir, &sfs))
	if sfs.Type == unix.TMPFS_MAGIC {
		t.Fatalf("%s is tmpfs; this test wants a disk file system (set TMPDIR to one)", dir)
	}
	return dir
}

// uncached writes a file of n bytes, flushes it and drops it from the
// page cache, as if the machine had just started.
func uncached(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	must(t, err)
	defer f.Close()
	chunk := bytes.Repeat([]byte("uncached"), 1<<17) // 1 MiB
	for i := 0; i < n>>20; i++ {
		_, err := f.Write(chunk)
		must(t, err)
	}
	must(t, f.Sync())
	must(t, unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
}

func cached(t *testing.T, path string) int64 {
	t.Helper()
	n, err := CachedBytes(path)
	must(t, err)
	return n
}

// A HostFile reads and writes a large file through the page cache without
// keeping it, with RWF_DONTCACHE and with the fadvise fallback a kernel
// without it gets; made to keep the cache, it keeps it.
func TestHostFileLeavesPageCache(t *testing.T) {
	const size, most = 128 << 20, 32 << 20
	dir := diskDir(t)
	src := filepath.Join(dir, "src")
	uncached(t, src, size)
	for _, tc := range []struct {
		name       string
		keep, noDC bool
		mode       string
		maxR, minR int64
	}{
		{name: "dontcache", mode: CacheDontcache, maxR: most},
		{name: "fadvise", noDC: true, mode: CacheFadvise, maxR: most},
		{name: "keep", keep: true, mode: CacheKept, maxR: size, minR: size * 3 / 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(src)
			must(t, err)
			in := &HostFile{f: f, size: size, keep: tc.keep, noDontcache: tc.noDC}
			dst := filepath.Join(dir, "dst-"+tc.name)
			g, err := os.Create(dst)
			must(t, err)
			out := &HostFile{f: g, size: size, keep: tc.keep, noDontcache: tc.noDC}
			n, err := goio.CopyBuffer(struct{ goio.Writer }{out}, struct{ goio.Reader }{in}, make([]byte, 4<<20))
			must(t, err)
			must(t, in.Close())
			must(t, out.Close())
			if n != size {
				t.Fatalf("copied %d bytes, want %d", n, size)
			}
			if in.Mode() != tc.mode || out.Mode() != tc.mode {
				t.Errorf("modes %q (read) and %q (write), want %q", in.Mode(), out.Mode(), tc.mode)
			}
			for _, p := range []string{src, dst} {
				if r := cached(t, p); r > tc.maxR || r < tc.minR {
					t.Errorf("%s: %d MiB in the page cache after the copy, want %d to %d MiB", filepath.Base(p), r>>20, tc.minR>>20, tc.maxR>>20)
				}
			}
			uncached(t, src, size) // for the next case
			os.Remove(dst)
		})
	}
}

// A file the cache already holds wholly is read plainly and stays there,
// whether the kernel has RWF_DONTCACHE or not: the cache is left as it was
// found.
func TestHostFileKeepsWhatWasCached(t *testing.T) {
	const size = 16 << 20
	src := filepath.Join(diskDir(t), "src")
	uncached(t, src, size)
	b, err := os.ReadFile(src) // into the cache
	must(t, err)
	before := cached(t, src)
	if before < size {
		t.Fatalf("%d MiB of the file cached after reading it, want all %d", before>>20, size>>20)
	}
	for _, noDC := range []bool{false, true} {
		f, err := os.Open(src)
		must(t, err)
		h := &HostFile{f: f, size: size, noDontcache: noDC}
		got, err := goio.ReadAll(struct{ goio.Reader }{h})
		must(t, err)
		must(t, h.Close())
		if !bytes.Equal(got, b) {
			t.Fatal("read other bytes than the file holds")
		}
		if h.Mode() != CacheFound {
			t.Errorf("without RWF_DONTCACHE %v: mode %q, want %q", noDC, h.Mode(), CacheFound)
		}
		// The mode says the cache was left alone; a page or two may still
		// go to reclaim while the machine is busy (seen under -race with
		// other work running), so the count may fall by that much.
		if after := cached(t, src); after < before-2<<20 {
			t.Errorf("without RWF_DONTCACHE %v: %d MiB cached before the read, %d MiB after", noDC, before>>20, after>>20)
		}
	}
}

// Files under HostDropMin pass plainly, and so does a file of unknown
// size until it reaches it.
func TestHostFileSmallIsPlain(t *testing.T) {
	dir := diskDir(t)
	f, err := os.Create(filepath.Join(dir, "small"))
	must(t, err)
	h := NewHostFile(f, 4096, false)
	_, err = h.Write(make([]byte, 4096))
	must(t, err)
	must(t, h.Close())
	if h.Mode() != "" {
		t.Errorf("a 4 KiB file: mode %q, want plain", h.Mode())
	}
	g, err := os.Create(filepath.Join(dir, "grows"))
	must(t, err)
	h = NewHostFile(g, -1, false)
	for i := 0; i < 3; i++ {
		_, err = h.Write(make([]byte, HostDropMin/2))
		must(t, err)
		if want := i >= 2; (h.Mode() != "") != want {
			t.Errorf("after %d KiB of a file of unknown size: mode %q", (i+1)*HostDropMin/2>>10, h.Mode())
		}
	}
	must(t, h.Close())
}
