// Command format makes an image file holding an empty FAT32 volume:
//
//	format IMAGE SIZE_MIB
package main

import (
	"fmt"
	"log"
	"os"
	"strconv"
	"time"

	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

func main() {
	mib, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil {
		log.Fatal(err)
	}
	if err := fio.CreateImage(os.Args[1], mib<<20); err != nil {
		log.Fatal(err)
	}
	dev, err := fio.Open(os.Args[1], fio.Options{Write: true, Sync: fio.SyncClose})
	if err != nil {
		log.Fatal(err)
	}
	_, l, err := fat.Format(dev, fat.FormatParams{Size: dev.Size(), Type: fat.FAT32}, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, %d clusters of %d bytes\n", l.Type, l.Clusters, l.ClusterSize)
	if err := dev.Close(); err != nil { // flushes
		log.Fatal(err)
	}
}
