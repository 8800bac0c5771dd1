// Command inmemory formats an exFAT volume in memory, writes a file into
// it and reads it back: a volume needs no file or device.
package main

import (
	"fmt"
	"io"
	"io/fs"
	"log"
	"time"

	"github.com/ftools/ftools/pkg/exfat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() {
	dev := fio.NewMemDevice(64<<20, 512)
	if _, _, err := exfat.Format(dev, exfat.FormatParams{Size: dev.Size()}, time.Now()); err != nil {
		log.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		log.Fatal(err)
	}
	w, err := v.Create("hello.txt", 0, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(w, "Hello from memory\n")
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	b, err := fs.ReadFile(v, "hello.txt")
	fmt.Print(string(b), err, "\n")
}
