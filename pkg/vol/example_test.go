package vol_test

import (
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// A volume in memory: format a device made of a byte buffer, write a file,
// read it back through io/fs.
func Example() {
	dev := fio.NewMemDevice(64<<20, 512)
	if _, _, err := exfat.Format(dev, exfat.FormatParams{Size: dev.Size()}, time.Now()); err != nil {
		log.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	w, _ := v.Create("hello.txt", 0, time.Now())
	io.WriteString(w, "Hello, exFAT\n")
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	b, _ := fs.ReadFile(v, "hello.txt")
	fmt.Print(v.Type(), ": ", string(b))
	// Output: exFAT: Hello, exFAT
}

// Format an image file as FAT32: create it (sparse), open it for writing
// with the sync policy the commands use, and format it; the device's Close
// flushes. vol.Open(dev) would then open the new volume.
func Example_formatImage() {
	img := filepath.Join(os.TempDir(), "example-fat32.img")
	defer os.Remove(img)
	if err := fio.CreateImage(img, 256<<20); err != nil {
		log.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{Write: true, Sync: fio.SyncClose})
	if err != nil {
		log.Fatal(err)
	}
	p := fat.FormatParams{Size: dev.Size(), Type: fat.FAT32, Label: "MYDISK"}
	_, l, err := fat.Format(dev, p, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(l.Type, l.ClusterSize, l.Clusters, dev.Close())
	// Output: FAT32 512 516190 <nil>
}

// Copy a host folder into a volume: walk it with fs.WalkDir, make each
// folder, write each file through a Writer. Abort after Close does
// nothing, so a deferred Abort drops the files that fail half way.
// The files appear on Close (or Commit), in the crash-safe order.
func Example_copyTree() {
	v, host := newVolume(), os.DirFS("testdata/tree")
	err := fs.WalkDir(host, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		} else if d.IsDir() {
			return v.MkdirAll(name, time.Now())
		}
		b, err := fs.ReadFile(host, name)
		if err != nil {
			return err
		}
		w, err := v.Create(name, int64(len(b)), time.Now())
		if err != nil {
			return err
		}
		defer w.Abort()
		if _, err := w.Write(b); err != nil {
			return err
		}
		return w.Close()
	})
	fmt.Println(err, v.Close())
	// Output: <nil> <nil>
}

// A Volume is an fs.FS (with fs.ReadDirFS and fs.StatFS): walk it and read
// it with io/fs.
func Example_walk() {
	v := newVolume("docs/notes.txt", "README.TXT")
	defer v.Close()
	fs.WalkDir(v, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(v, name)
		fmt.Printf("%s: %q\n", name, b)
		return err
	})
	// Output:
	// README.TXT: "README.TXT's bytes"
	// docs/notes.txt: "docs/notes.txt's bytes"
}

// Update a file: read it, then Create it again; the new file replaces the
// old one once its Writer is closed and the volume commits, so a crash
// leaves one or the other, never a mix.
func Example_update() {
	v := newVolume("config.txt")
	defer v.Close()
	b, err := fs.ReadFile(v, "config.txt")
	if err != nil {
		log.Fatal(err)
	}
	b = append(b, " debug=1\n"...)
	w, err := v.Create("config.txt", int64(len(b)), time.Now())
	if err != nil {
		log.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		log.Fatal(err) // exiting before Commit leaves config.txt as it was
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	b, _ = fs.ReadFile(v, "config.txt")
	fmt.Printf("%q %v\n", b, v.Commit())
	// Output: "config.txt's bytes debug=1\n" <nil>
}

// Check a volume without writing, then repair what the check found
// (fsck.fat's checks and repairs; pkg/exfat has the same pair).
func Example_checkAndRepair() {
	v := newVolume("a.txt")
	fv := vol.AsFAT(v)
	fv.SetFreeCount(12) // damage: a wrong free count in FSINFO
	fv.Close()
	fv, _ = fat.Open(v.Device())
	rep, err := fat.Check(fv, fat.CheckOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("clean:", rep.Clean())
	plan, err := fat.Repair(fv, rep, fat.RepairOptions{}) // then closes fv
	fmt.Println(strings.Join(plan, "\n"), err)
	fv, _ = fat.Open(v.Device())
	rep, _ = fat.Check(fv, fat.CheckOptions{})
	fmt.Println("clean:", rep.Clean())
	// Output:
	// clean: false
	// set FSINFO's free count to the FAT's once repaired <nil>
	// clean: true
}

// Open the volume in partition 1 of a disk image (MBR or GPT); Options.Offset
// opens one at a byte offset instead.
func Example_partition() {
	img := diskImage() // a disk image with a partition table, as other tools make
	defer os.Remove(img)
	dev, err := fio.Open(img, fio.Options{Partition: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	v, err := vol.Open(dev)
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	fmt.Println(v.Type(), dev.Start())
	// Output: FAT16 1048576
}

// newVolume formats a FAT32 volume in memory (see Example) holding the
// named files, each holding its own name and "'s bytes".
func newVolume(names ...string) vol.Volume {
	dev := fio.NewMemDevice(64<<20, 512)
	p := fat.FormatParams{Size: dev.Size(), Type: fat.FAT32, AllowSmallFAT32: true}
	if _, _, err := fat.Format(dev, p, time.Now()); err != nil {
		log.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range names {
		if err := v.MkdirAll(filepath.Dir(name), time.Now()); err != nil {
			log.Fatal(err)
		}
		w, err := v.Create(name, 0, time.Now())
		if err != nil {
			log.Fatal(err)
		}
		io.WriteString(w, name+"'s bytes")
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
	}
	if err := v.Commit(); err != nil {
		log.Fatal(err)
	}
	return v
}

// diskImage writes a 64 MiB disk image holding an MBR with one FAT16
// partition at 1 MiB, and returns its path.
func diskImage() string {
	img := filepath.Join(os.TempDir(), "example-disk.img")
	os.Remove(img)
	if err := fio.CreateImage(img, 64<<20); err != nil {
		log.Fatal(err)
	}
	disk, err := fio.Open(img, fio.Options{Write: true})
	if err != nil {
		log.Fatal(err)
	}
	defer disk.Close()
	size := int64(63 << 20)
	if err := fio.WritePartitionTable(disk, fio.TableSpec{Kind: "mbr", Start: 1 << 20, Size: size, MBRType: 0x0e}); err != nil {
		log.Fatal(err)
	}
	part, err := fio.Open(img, fio.Options{Write: true, Partition: 1, NoLock: true})
	if err != nil {
		log.Fatal(err)
	}
	defer part.Close()
	p := fat.FormatParams{Size: size, Type: fat.FAT16, HiddenSectors: 2048}
	if _, _, err := fat.Format(part, p, time.Now()); err != nil {
		log.Fatal(err)
	}
	return img
}
