// Command check checks a FAT or exFAT image as fsck.fat -n and fsck.exfat
// -n do and, with -repair, repairs what it found as fsck.fat -a and
// fsck.exfat -y do:
//
//	check [-repair] IMAGE
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

func main() {
	repair := flag.Bool("repair", false, "repair what the check finds")
	flag.Parse()
	dev, err := fio.Open(flag.Arg(0), fio.Options{Write: *repair})
	if err != nil {
		log.Fatal(err)
	}
	rep, err := vol.Check(dev, vol.CheckOptions{}) // falls back on a backup boot sector
	if err != nil {
		log.Fatal(err)
	}
	if *repair && rep.NeedsRepair() {
		_, err = vol.Repair(rep, vol.RepairOptions{}) // marks what it fixed; rep.Left lists the rest
	}
	for _, p := range rep.Problems {
		fmt.Println(p)
	}
	if err := errors.Join(err, rep.Close(), dev.Close()); err != nil {
		log.Fatal(err)
	}
}
