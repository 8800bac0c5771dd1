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
	v, err := vol.OpenFile(flag.Arg(0), fio.Options{Partition: *part}) // or Offset: a byte offset
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	entries, err := v.ReadDir(".")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s at byte %d:\n", v.Type(), v.Device().Start())
	for _, e := range entries {
		fmt.Println(e.Name())
	}
}
