// Command copytree copies a host folder into the root of a FAT or exFAT
// image (refusing, before it writes anything, a file that is there
// already):
//
//	copytree IMAGE DIR
package main

import (
	"errors"
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
	err = vol.CopyFS(v, "/", os.DirFS(os.Args[2]))
	if err = errors.Join(err, v.Close()); err != nil { // Close writes all, in the crash-safe order
		log.Fatal(err)
	}
}
