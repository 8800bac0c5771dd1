// Command update appends a line to a file of a FAT or exFAT image, in
// place (the file's new size is written after the data, so a program
// stopped part way leaves the file as it was):
//
//	update IMAGE PATH LINE
package main

import (
	"errors"
	"io"
	"log"
	"os"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() {
	v, err := vol.OpenFile(os.Args[1], fio.Options{Write: true})
	if err != nil {
		log.Fatal(err)
	}
	f, err := v.OpenFile(os.Args[2], os.O_WRONLY|os.O_APPEND) // WriteAt, Seek and Truncate too
	if err != nil {
		log.Fatal(err)
	}
	if _, err := io.WriteString(f, os.Args[3]+"\n"); err != nil {
		log.Fatal(err) // exiting before f.Close leaves the file's size as it was
	}
	if err := errors.Join(f.Close(), v.Close()); err != nil {
		log.Fatal(err)
	}
}
