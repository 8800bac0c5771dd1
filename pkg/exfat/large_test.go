package exfat

import (
	"bytes"
	"io"
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// TestFileOver4GiB writes a file of 4 GiB + 1 MiB through a Writer into a
// sparse image (the data is really written: about 4 GiB of disk for a few
// seconds), checks it with fsck.exfat, and reads back its last mebibyte
// past the 32-bit boundary; then a second file of 5 GiB made with
// Fallocate, whose clusters are allocated without being written.
func TestFileOver4GiB(t *testing.T) {
	const big = 4<<30 + 1<<20
	img := formatImage(t, 10<<30, FormatParams{})
	// O_DIRECT, as the commands write: buffered, the page cache's
	// write-back throttling makes 4 GiB take many times longer.
	d, err := fio.Open(img, fio.Options{Write: true, Sync: fio.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	v, err := Open(d)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 8<<20)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	writeChunks(t, v, "video.mp4", big, chunk)
	if _, err := v.Fallocate("reserved.bin", 5<<30, FallocateOptions{NoZero: true}); err != nil {
		t.Fatal(err)
	}
	closeVol(t, v)
	fsckClean(t, img)

	v = openVol(t, img, false)
	defer closeVol(t, v)
	fi, err := v.Stat("video.mp4")
	if err != nil || fi.Size() != big {
		t.Fatalf("stat: %v size %d", err, fi.Size())
	}
	f, _ := v.Open("video.mp4")
	tail := make([]byte, 1<<20)
	if _, err := f.(*File).ReadAt(tail, big-1<<20); err != nil {
		t.Fatal(err)
	}
	// The tail is the last 1 MiB of the 8 MiB chunk pattern.
	off := (big - 1<<20) % int64(len(chunk))
	if !bytes.Equal(tail, chunk[off:off+1<<20]) {
		t.Fatal("the file's last mebibyte reads back wrong")
	}
	if n, err := f.(*File).ReadAt(tail, big); n != 0 || err != io.EOF {
		t.Fatalf("read past the end: %d %v", n, err)
	}
	r, _ := v.Open("reserved.bin")
	if fi, _ := r.Stat(); fi.Size() != 5<<30 {
		t.Fatalf("reserved.bin size %d", fi.Size())
	}
	if _, err := r.(*File).ReadAt(tail, 5<<30-1<<20); err != nil || bytes.Count(tail, []byte{0}) != len(tail) {
		t.Fatalf("unwritten clusters past the valid data length must read as zeros: %v", err)
	}
	rep, err := Check(v, CheckOptions{})
	if err != nil || !rep.Clean() {
		t.Fatalf("Check: %v %v", err, rep.Problems)
	}
}
