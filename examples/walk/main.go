// Command walk lists every file of a FAT or exFAT image with its size,
// reading each one through io/fs:
//
//	walk IMAGE
package main

import (
	"fmt"
	"io/fs"
	"log"
	"os"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() {
	dev, err := fio.Open(os.Args[1], fio.Options{})
	if err != nil {
		log.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		log.Fatal(err)
	}
	err = fs.WalkDir(v, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(v, name)
		fmt.Printf("%8d %s\n", len(b), name)
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
}
