// Command inmemory loads an image file into memory, adds a file to the
// volume there and reads it back, leaving the image file as it was:
// OpenBytes opens a volume on a byte slice, and its Close writes the
// changes into the slice (os.WriteFile could then save it).
//
//	inmemory IMAGE
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"time"

	"github.com/ftools/ftools/pkg/vol"
)

func main() {
	img, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	v, err := vol.OpenBytes(img)
	if err != nil {
		log.Fatal(err)
	}
	w, err := v.Create("hello.txt", 0, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	_, err = io.WriteString(w, "Hello from memory\n")
	if err = errors.Join(err, w.Close()); err != nil {
		log.Fatal(err)
	}
	b, err := fs.ReadFile(v, "hello.txt")
	fmt.Printf("%s: %s%v %v\n", v.Type(), b, err, v.Close())
}
