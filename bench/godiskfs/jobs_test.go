package godiskfs

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"time"

	diskfs "github.com/diskfs/go-diskfs"
	"github.com/diskfs/go-diskfs/disk"
	"github.com/diskfs/go-diskfs/filesystem"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

var (
	full = flag.Bool("full", false, "the issue's sizes: one 1 GiB file and 2,000 files (go-diskfs takes minutes)")
	dir  = flag.String("dir", "", "where the images go (default: the test's temporary directory)")
)

// A job is a set of files to write into a fresh FAT32 image and read back.
type job struct {
	image int64 // bytes
	files []file
}

// A file is written as size bytes of block, starting at offset from in it
// and wrapping around.
type file struct {
	name string
	size int64
	from int
}

const chunk = 1 << 20 // each write and read is at most this long

// block is the bytes every file is cut from: random, so that nothing can
// compress or deduplicate them, and the same in every run.
var block = func() []byte {
	b := make([]byte, 2*chunk)
	r := rand.NewChaCha8([32]byte{'f', 't', 'o', 'o', 'l', 's'})
	r.Read(b[:chunk])
	copy(b[chunk:], b[:chunk])
	return b
}()

// bigJob is one file of 64 MiB (1 GiB with -full) in an image of 512 MiB
// (4 GiB).
func bigJob() job {
	if *full {
		return job{image: 4 << 30, files: []file{{name: "BIG.BIN", size: 1 << 30}}}
	}
	return job{image: 512 << 20, files: []file{{name: "BIG.BIN", size: 64 << 20}}}
}

// smallJob is n files (200; 2,000 with -full) of 1 byte to 16 KiB, sizes
// that mostly end inside a cluster, in folders of 100.
func smallJob(n int) job {
	j := job{image: 512 << 20}
	for i := range n {
		j.files = append(j.files, file{
			name: fmt.Sprintf("dir%02d/file%04d.dat", i/100, i),
			size: int64(i*7919*131)%(16<<10) + 1,
			from: i * 4099 % chunk,
		})
	}
	return j
}

func smallCount() int {
	if *full {
		return 2000
	}
	return 200
}

// write writes f's bytes to w in chunks of at most 1 MiB.
func (f file) write(w io.Writer) error {
	for done := int64(0); done < f.size; {
		n := min(f.size-done, chunk)
		from := (f.from + int(done)) % chunk
		if _, err := w.Write(block[from : from+int(n)]); err != nil {
			return err
		}
		done += n
	}
	return nil
}

// same reads r to its end and reports whether it held f's bytes, no more
// and no fewer.
func (f file) same(r io.Reader) (bool, error) {
	buf := make([]byte, chunk)
	for done := int64(0); ; {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if done+int64(n) > f.size {
				return false, nil
			}
			from := (f.from + int(done)) % chunk
			if !bytes.Equal(buf[:n], block[from:from+n]) {
				return false, nil
			}
			done += int64(n)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return done == f.size, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// A tool formats, fills and reads back FAT32 images.
type tool struct {
	name   string
	format func(image string, size int64) error
	write  func(image string, files []file) error
	// read reads every file back and counts those whose bytes differ.
	read func(image string, files []file) (bad int, err error)
}

var tools = []tool{
	{"ftools", ftoolsFormat, ftoolsWrite(fio.Options{}), ftoolsRead(fio.Options{})},
	// The same through the page cache, as go-diskfs's os.File I/O goes:
	// ftools' default, O_DIRECT, reads every file from the disk again.
	{"ftools-buffered", ftoolsFormat, ftoolsWrite(fio.Options{Buffered: true}), ftoolsRead(fio.Options{Buffered: true})},
	{"go-diskfs", diskfsFormat, diskfsWrite, diskfsRead},
}

// dirs lists the folders files need, each once, in order.
func dirs(files []file) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		if d := path.Dir(f.name); d != "." && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// ftools: pkg/fat formats; pkg/vol writes and reads, through a device
// opened with the sync policy the commands use by default (flush on close).

func ftoolsFormat(image string, size int64) error {
	if err := fio.CreateImage(image, size); err != nil {
		return err
	}
	dev, err := fio.Open(image, fio.Options{Write: true, Sync: fio.SyncClose})
	if err != nil {
		return err
	}
	if _, _, err := fat.Format(dev, fat.FormatParams{Size: dev.Size(), Type: fat.FAT32}, time.Now()); err != nil {
		dev.Close()
		return err
	}
	return dev.Close()
}

// ftoolsWrite writes through a device opened with o, for writing.
func ftoolsWrite(o fio.Options) func(image string, files []file) error {
	return func(image string, files []file) error {
		o.Write, o.Sync = true, fio.SyncClose
		return ftoolsWriteWith(image, o, files)
	}
}

func ftoolsWriteWith(image string, o fio.Options, files []file) (err error) {
	dev, err := fio.Open(image, o)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, dev.Close()) }()
	v, err := vol.Open(dev)
	if err != nil {
		return err
	}
	now := time.Now()
	for _, d := range dirs(files) {
		if err := v.MkdirAll(d, now); err != nil {
			return errors.Join(err, v.Close())
		}
	}
	for _, f := range files {
		w, err := v.Create(f.name, f.size, now)
		if err != nil {
			return errors.Join(err, v.Close())
		}
		if err := f.write(w); err != nil {
			w.Abort()
			return errors.Join(err, v.Close())
		}
		if err := w.Close(); err != nil {
			return errors.Join(err, v.Close())
		}
	}
	return v.Close()
}

// ftoolsRead reads through a device opened with o.
func ftoolsRead(o fio.Options) func(image string, files []file) (int, error) {
	return func(image string, files []file) (int, error) { return ftoolsReadWith(image, o, files) }
}

func ftoolsReadWith(image string, o fio.Options, files []file) (bad int, err error) {
	dev, err := fio.Open(image, o)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, dev.Close()) }()
	v, err := vol.Open(dev)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, v.Close()) }()
	return readAll(v, "", files)
}

// go-diskfs: its documented way, diskfs.Create and CreateFilesystem to
// format, diskfs.Open and GetFilesystem to write and read; the image file
// is flushed before it is closed, as ftools' is.

func diskfsFormat(image string, size int64) error {
	d, err := diskfs.Create(image, size, diskfs.SectorSizeDefault)
	if err != nil {
		return err
	}
	fsys, err := d.CreateFilesystem(disk.FilesystemSpec{Partition: 0, FSType: filesystem.TypeFat32})
	if err != nil {
		d.Close()
		return err
	}
	return errors.Join(fsys.Close(), d.Close())
}

func diskfsWrite(image string, files []file) (err error) {
	d, err := diskfs.Open(image)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, d.Close()) }()
	fsys, err := d.GetFilesystem(0)
	if err != nil {
		return err
	}
	for _, dir := range dirs(files) {
		if err := fsys.Mkdir("/" + dir); err != nil {
			return err
		}
	}
	for _, f := range files {
		w, err := fsys.OpenFile("/"+f.name, os.O_CREATE|os.O_RDWR)
		if err != nil {
			return err
		}
		if err := f.write(w); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	if err := fsys.Close(); err != nil {
		return err
	}
	osf, err := d.Backend.Sys()
	if err != nil {
		return err
	}
	return osf.Sync()
}

func diskfsRead(image string, files []file) (bad int, err error) {
	d, err := diskfs.Open(image, diskfs.WithOpenMode(diskfs.ReadOnly))
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, d.Close()) }()
	fsys, err := d.GetFilesystem(0)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, fsys.Close()) }()
	return readAll(fsys, "/", files)
}

// readAll reads files back through io/fs, prefix put before each name.
func readAll(fsys fs.FS, prefix string, files []file) (bad int, err error) {
	for _, f := range files {
		r, err := fsys.Open(prefix + f.name)
		if err != nil {
			return bad, err
		}
		ok, err := f.same(r)
		r.Close()
		if err != nil {
			return bad, fmt.Errorf("%s: %w", f.name, err)
		}
		if !ok {
			bad++
		}
	}
	return bad, nil
}
