package io

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tryLock reports whether a descriptor of its own (another open file
// description, as another process would have) gets the flock how at once.
func tryLock(t *testing.T, path string, how int) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), how|unix.LOCK_NB) == nil
}

func lockImage(t *testing.T) (dir, img string) {
	t.Helper()
	dir = t.TempDir()
	img = filepath.Join(dir, "a.img")
	if err := CreateImage(img, 1<<20); err != nil {
		t.Fatal(err)
	}
	return dir, img
}

// One image opened twice in a process, under two names, shares one lock:
// neither open fails on the other's lock, a reader joined by a writer holds
// it exclusively, and it goes with the last Close.
func TestLockSharedWithinProcess(t *testing.T) {
	dir, img := lockImage(t)
	link := filepath.Join(dir, "link.img")
	if err := os.Symlink("a.img", link); err != nil {
		t.Fatal(err)
	}
	r, err := Open(img, Options{Buffered: true})
	if err != nil {
		t.Fatal(err)
	}
	if tryLock(t, img, unix.LOCK_EX) || !tryLock(t, img, unix.LOCK_SH) {
		t.Fatal("a reader should hold a shared lock")
	}
	w, err := Open(link, Options{Write: true, Buffered: true, Offset: 4096})
	if err != nil {
		t.Fatalf("a second open of the same image in this process: %v", err)
	}
	if tryLock(t, img, unix.LOCK_SH) {
		t.Fatal("a writer joined: the lock should be exclusive")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if tryLock(t, img, unix.LOCK_SH) {
		t.Fatal("the lock went with the first Close")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if !tryLock(t, img, unix.LOCK_EX) {
		t.Fatal("the lock outlived the last Close")
	}
}

// Closing Options.Cancel ends a wait for another process's lock with
// ErrCanceled; without it, the wait ends when the lock comes.
func TestLockWaitCancel(t *testing.T) {
	_, img := lockImage(t)
	holder, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	fd := int(holder.Fd()) // read once: the timer below must not race with Close
	if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(img, Options{Buffered: true}); !errors.Is(err, ErrLocked) {
		t.Fatalf("without --wait: %v, want ErrLocked", err)
	}
	cancel := make(chan struct{})
	time.AfterFunc(100*time.Millisecond, func() { close(cancel) })
	start := time.Now()
	if _, err := Open(img, Options{Buffered: true, Wait: true, Cancel: cancel}); !errors.Is(err, ErrCanceled) {
		t.Fatalf("canceled wait: %v, want ErrCanceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the wait took %v to end", d)
	}
	time.AfterFunc(100*time.Millisecond, func() { unix.Flock(fd, unix.LOCK_UN) })
	d, err := Open(img, Options{Buffered: true, Wait: true, Cancel: make(chan struct{})})
	if err != nil {
		t.Fatalf("wait for a released lock: %v", err)
	}
	d.Close()
}

// Identify gives one answer for every name of a file.
func TestIdentify(t *testing.T) {
	dir, img := lockImage(t)
	other := filepath.Join(dir, "b.img")
	if err := CreateImage(other, 4096); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(img, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	want, err := Identify(img)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.img", "./a.img", link, "../" + filepath.Base(dir) + "/a.img"} {
		if got, err := Identify(name); err != nil || got != want {
			t.Errorf("Identify(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if got, _ := Identify(other); got == want {
		t.Error("two files share a FileID")
	}
	if _, err := Identify(filepath.Join(dir, "missing")); err == nil {
		t.Error("Identify of a missing file succeeded")
	}
}

// Two Devices of this process open for writing over one byte of an image
// are refused (two volumes writing one file system would lose one's
// files); a reader beside a writer is not; a window given back on Close
// can be opened again.
func TestOverlappingWritersRefused(t *testing.T) {
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(img, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	w := Options{Write: true, Buffered: true}
	high := Options{Write: true, Buffered: true, Offset: 2 << 20, Force: true}
	a, err := Open(img, w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(img, w); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second writer of the whole image: %v, want ErrLocked", err)
	}
	if _, err := Open(img, high); !errors.Is(err, ErrLocked) {
		t.Fatalf("a writer of the second half beside a writer of the whole: %v, want ErrLocked", err)
	}
	r, err := Open(img, Options{Buffered: true})
	if err != nil {
		t.Fatalf("a reader beside the writer: %v", err)
	}
	r.Close()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := Open(img, high)
	if err != nil {
		t.Fatalf("a writer of the second half once the whole is closed: %v", err)
	}
	if _, err := Open(img, w); !errors.Is(err, ErrLocked) {
		t.Fatalf("a writer of the whole beside one of the second half: %v, want ErrLocked", err)
	}
	h.Close()
	if a, err = Open(img, w); err != nil {
		t.Fatalf("the whole once every writer closed: %v", err)
	}
	a.Close()
}
