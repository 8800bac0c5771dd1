// Command format makes an image file holding an empty FAT32 volume:
//
//	format IMAGE SIZE_MIB
package main

import (
	"errors"
	"fmt"
	"log"
	"os"
	"strconv"

	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() {
	mib, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil {
		log.Fatal(err)
	}
	if err := fio.CreateImage(os.Args[1], mib<<20); err != nil { // a sparse file
		log.Fatal(err)
	}
	dev, err := fio.Open(os.Args[1], fio.Options{Write: true})
	if err != nil {
		log.Fatal(err)
	}
	// FormatOptions{ExFAT: &vol.ExFATParams{}} would make exFAT.
	f, err := vol.Format(dev, vol.FormatOptions{FAT: &vol.FATParams{Type: fat.FAT32}})
	if err = errors.Join(err, dev.Close()); err != nil { // Close flushes
		log.Fatal(err)
	}
	fmt.Printf("%s, %d bytes\n", f.Type, f.Size)
}
