// Command partition lists the root folder of the FAT or exFAT volume in a
// partition of a disk image (MBR or GPT):
//
//	partition [-p NUMBER] IMAGE
package main

import (
	"flag"
	"fmt"
	"log"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() {
	part := flag.Int("p", 1, "the partition's number in the table")
	flag.Parse()
	dev, err := fio.Open(flag.Arg(0), fio.Options{Partition: *part})
	if err != nil {
		log.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		log.Fatal(err)
	}
	entries, err := v.ReadDir(".")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s at byte %d:\n", v.Type(), dev.Start())
	for _, e := range entries {
		fmt.Println(e.Name())
	}
}
