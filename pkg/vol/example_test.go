package vol_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// A volume in memory: format a memory device as exFAT, write a file and
// read it back through io/fs. (OpenBytes opens an image held in a byte
// slice, such as one os.ReadFile loaded.)
func Example() {
	dev := fio.NewMemDevice(64<<20, 512)
	if _, err := vol.Format(dev, vol.FormatOptions{ExFAT: &vol.ExFATParams{}}); err != nil {
		log.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	w, err := v.Create("hello.txt", 0, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	_, err = io.WriteString(w, "Hello, exFAT\n")
	if err = errors.Join(err, w.Close()); err != nil {
		log.Fatal(err) // exiting before v.Close (or Commit) records nothing
	}
	b, err := fs.ReadFile(v, "hello.txt")
	fmt.Printf("%s: %q %v\n", v.Type(), b, err)
	// Output: exFAT: "Hello, exFAT\n" <nil>
}

// Format an image file as FAT32: create it (sparse), open it for writing
// and format it; the device's Close flushes. vol.OpenFile then opens the
// new volume.
func Example_formatImage() {
	img := filepath.Join(os.TempDir(), "example-fat32.img")
	defer os.Remove(img)
	if err := fio.CreateImage(img, 256<<20); err != nil {
		log.Fatal(err)
	}
	dev, err := fio.Open(img, fio.Options{Write: true})
	if err != nil {
		log.Fatal(err)
	}
	f, err := vol.Format(dev, vol.FormatOptions{FAT: &vol.FATParams{Type: fat.FAT32, Label: "MYDISK"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Type, f.FATLayout.ClusterSize, f.FATLayout.Clusters, dev.Close())
	// Output: FAT32 512 516190 <nil>
}

// Copy a host folder into a volume: CopyFS makes each folder and writes
// each file, refusing before it changes anything if a file is there
// already. The files reach the device on Close (or Commit), in the
// crash-safe order.
func Example_copyTree() {
	v := newVolume()
	if err := vol.CopyFS(v, "/", os.DirFS("testdata/tree")); err != nil {
		log.Fatal(err)
	}
	b, err := fs.ReadFile(v, "docs/notes.txt")
	fmt.Printf("%q %v %v\n", b, err, v.Close())
	// Output: "A note kept in a folder.\n" <nil> <nil>
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

// Update a file whole: read it, then Create it again; the new file
// replaces the old one once its Writer is closed and the volume commits,
// so a crash leaves one or the other, never a mix. (Volume.OpenFile
// updates a file in place: see the example UpdateInPlace.)
func Example_update() {
	v := newVolume("config.txt")
	defer v.Close()
	b, err := fs.ReadFile(v, "config.txt")
	if err != nil {
		log.Fatal(err)
	}
	w, err := v.Create("config.txt", 0, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	_, err = w.Write(append(b, " debug=1\n"...))
	if err = errors.Join(err, w.Close()); err != nil {
		log.Fatal(err) // exiting before Commit leaves config.txt as it was
	}
	b, err = fs.ReadFile(v, "config.txt")
	fmt.Printf("%q %v %v\n", b, err, v.Commit())
	// Output: "config.txt's bytes debug=1\n" <nil> <nil>
}

// Check a volume of either file system without writing (as fsck.fat -n and
// fsck.exfat -n do), then repair what the check found. Here each volume
// was left dirty, as by a program that stopped before Close.
func Example_checkAndRepair() {
	for _, v := range []vol.Volume{newVolume("a.txt"), newExFAT("a.txt")} {
		rep, err := vol.Check(v.Device(), vol.CheckOptions{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rep.Type, "problems:", len(rep.Problems))
		if rep.NeedsRepair() {
			_, err := vol.Repair(rep, vol.RepairOptions{})
			fmt.Println("fixed:", rep.Fixed(), "left:", len(rep.Left), err, rep.Close())
		}
		rep, err = vol.Check(v.Device(), vol.CheckOptions{})
		fmt.Println("clean:", rep.Clean(), err, rep.Close())
	}
	// Output:
	// FAT32 problems: 1
	// fixed: 1 left: 0 <nil> <nil>
	// clean: true <nil> <nil>
	// exFAT problems: 1
	// fixed: 1 left: 0 <nil> <nil>
	// clean: true <nil> <nil>
}

// Open the volume in partition 1 of a disk image (MBR or GPT);
// fio.Options.Offset opens one at a byte offset instead.
func Example_partition() {
	img := diskImage() // a disk image with a partition table, as other tools make
	defer os.Remove(img)
	v, err := vol.OpenFile(img, fio.Options{Partition: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close() // closes the device too
	fmt.Println(v.Type(), v.Device().Start())
	// Output: FAT16 1048576
}

// newVolume formats a FAT32 volume in memory holding the named files,
// each holding its own name and "'s bytes", and leaves it dirty (committed,
// not closed).
func newVolume(names ...string) vol.Volume {
	return fill(vol.FormatOptions{FAT: &vol.FATParams{Type: fat.FAT32, AllowSmallFAT32: true}}, names)
}

// newExFAT is newVolume for exFAT.
func newExFAT(names ...string) vol.Volume {
	return fill(vol.FormatOptions{ExFAT: &vol.ExFATParams{}}, names)
}

func fill(o vol.FormatOptions, names []string) vol.Volume {
	dev := fio.NewMemDevice(64<<20, 512)
	if _, err := vol.Format(dev, o); err != nil {
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
	p := vol.FATParams{Size: size, Type: fat.FAT16, HiddenSectors: 2048}
	if _, err := vol.Format(part, vol.FormatOptions{FAT: &p}); err != nil {
		log.Fatal(err)
	}
	return img
}
