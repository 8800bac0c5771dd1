package godiskfs

import (
	"os"
	"path/filepath"
	"testing"
)

// imageDir is where a benchmark or test puts its images.
func imageDir(tb testing.TB) string {
	if *dir != "" {
		d, err := os.MkdirTemp(*dir, "godiskfs-")
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	return tb.TempDir()
}

// BenchmarkWriteBig writes one file (64 MiB; 1 GiB with -full) into a
// fresh FAT32 image; formatting is not timed.
func BenchmarkWriteBig(b *testing.B) { benchWrite(b, bigJob()) }

// BenchmarkWriteSmall writes 200 files (2,000 with -full) of up to
// 16 KiB in folders of 100 into a fresh FAT32 image.
func BenchmarkWriteSmall(b *testing.B) { benchWrite(b, smallJob(smallCount())) }

// BenchmarkReadBig reads back and compares BenchmarkWriteBig's file
// (the image is in the page cache: warm reads).
func BenchmarkReadBig(b *testing.B) { benchRead(b, bigJob()) }

// BenchmarkReadSmall reads back and compares BenchmarkWriteSmall's files.
func BenchmarkReadSmall(b *testing.B) { benchRead(b, smallJob(smallCount())) }

func benchWrite(b *testing.B, j job) {
	d := imageDir(b)
	for _, t := range tools {
		b.Run(t.name, func(b *testing.B) {
			img := filepath.Join(d, t.name+".img")
			for b.Loop() {
				b.StopTimer()
				os.Remove(img)
				if err := t.format(img, j.image); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := t.write(img, j.files); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(j.bytes())
			os.Remove(img)
		})
	}
}

func benchRead(b *testing.B, j job) {
	d := imageDir(b)
	for _, t := range tools {
		b.Run(t.name, func(b *testing.B) {
			img := filepath.Join(d, t.name+".img")
			if err := t.format(img, j.image); err != nil {
				b.Fatal(err)
			}
			if err := t.write(img, j.files); err != nil {
				b.Fatal(err)
			}
			bad := 0
			for b.Loop() {
				var err error
				if bad, err = t.read(img, j.files); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(j.bytes())
			// Files read back with other bytes than were written
			// (go-diskfs pads a short file's last cluster).
			b.ReportMetric(float64(bad), "bad-files")
			os.Remove(img)
		})
	}
}

func (j job) bytes() int64 {
	var n int64
	for _, f := range j.files {
		n += f.size
	}
	return n
}
