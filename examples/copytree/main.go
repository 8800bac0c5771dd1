// Command copytree copies a host folder into the root of a FAT or exFAT
// image:
//
//	copytree IMAGE DIR
package main

import (
	"io"
	"io/fs"
	"log"
	"os"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() {
	dev, err := fio.Open(os.Args[1], fio.Options{Write: true, Sync: fio.SyncClose})
	if err != nil {
		log.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		log.Fatal(err)
	}
	if err := fs.WalkDir(os.DirFS(os.Args[2]), ".", copyIn(v, os.DirFS(os.Args[2]))); err != nil {
		log.Fatal(err)
	}
	if err := v.Close(); err != nil { // writes everything, in the crash-safe order
		log.Fatal(err)
	}
	if err := dev.Close(); err != nil {
		log.Fatal(err)
	}
}

// copyIn makes each folder fs.WalkDir meets and copies each file.
func copyIn(v vol.Volume, host fs.FS) fs.WalkDirFunc {
	return func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		} else if d.IsDir() {
			return v.MkdirAll(name, time.Now())
		}
		f, err := host.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		info, _ := d.Info()
		w, err := v.Create(name, info.Size(), info.ModTime())
		if err != nil {
			return err
		}
		defer w.Abort() // drops the file if the copy fails; nothing after Close
		if _, err := io.Copy(w, f); err != nil {
			return err
		}
		return w.Close()
	}
}
