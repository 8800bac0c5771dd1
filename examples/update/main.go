// Command update appends a line to a file of a FAT or exFAT image (the
// new file replaces the old one whole, so a crash leaves one of the two):
//
//	update IMAGE PATH LINE
package main

import (
	"errors"
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
	b, err := fs.ReadFile(v, os.Args[2])
	if err != nil {
		log.Fatal(err)
	}
	b = append(b, os.Args[3]+"\n"...)
	w, err := v.Create(os.Args[2], int64(len(b)), time.Now())
	if err != nil {
		log.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		log.Fatal(err) // exiting before Close leaves every file as it was
	}
	if err := errors.Join(w.Close(), v.Close(), dev.Close()); err != nil {
		log.Fatal(err)
	}
}
