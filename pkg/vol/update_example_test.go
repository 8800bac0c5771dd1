package vol_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
)

// Update a file in place: append to it and patch bytes at an offset. The
// bytes overwritten hold, after a power cut, their old or their new
// contents sector by sector; the appended ones appear with the new size
// only once their data is durable.
func Example_updateInPlace() {
	v := newVolume("log.txt")
	defer v.Close()
	u, err := v.OpenFile("log.txt", os.O_RDWR)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := u.WriteAt([]byte("LOG"), 0); err != nil {
		log.Fatal(err)
	}
	if _, err := u.Seek(0, io.SeekEnd); err != nil {
		log.Fatal(err)
	}
	_, err = u.Write([]byte(" more\n"))
	if err = errors.Join(err, u.Close()); err != nil {
		log.Fatal(err) // exiting before Commit leaves the file's size as it was
	}
	b, _ := fs.ReadFile(v, "log.txt")
	fmt.Printf("%q %v\n", b, v.Commit())
	// Output: "LOG.txt's bytes more\n" <nil>
}
