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
	v, err := vol.OpenFile(os.Args[1], fio.Options{Write: true})
	if err != nil {
		log.Fatal(err)
	}
	b, err := fs.ReadFile(v, os.Args[2])
	if err != nil {
		log.Fatal(err)
	}
	w, err := v.Create(os.Args[2], 0, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	_, err = w.Write(append(b, os.Args[3]+"\n"...))
	if err = errors.Join(err, w.Close()); err != nil {
		log.Fatal(err) // exiting before v.Close leaves every file as it was
	}
	if err := v.Close(); err != nil {
		log.Fatal(err)
	}
}
