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
	v, err := vol.OpenFile(os.Args[1], fio.Options{}) // read-only
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
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
