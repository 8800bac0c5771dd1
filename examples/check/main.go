// Command check checks a FAT image as fsck.fat -n does and, with -repair,
// repairs what it found as fsck.fat -a does (pkg/exfat has the same
// Check and Repair for exFAT):
//
//	check [-repair] IMAGE
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
)

func main() {
	repair := flag.Bool("repair", false, "repair what the check finds")
	flag.Parse()
	dev, err := fio.Open(flag.Arg(0), fio.Options{Write: *repair, Sync: fio.SyncClose})
	if err != nil {
		log.Fatal(err)
	}
	v, bootErr, err := fat.OpenForCheck(dev) // falls back on the backup boot sector
	if err != nil {
		log.Fatal(err)
	}
	rep, err := fat.Check(v, fat.CheckOptions{BootError: bootErr})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range rep.Problems {
		fmt.Println(p)
	}
	if *repair && !rep.Clean() {
		plan, err := fat.Repair(v, rep, fat.RepairOptions{}) // closes v when done
		fmt.Println(len(plan), "fixes,", len(rep.Left), "problems left", err)
	}
	if err := dev.Close(); err != nil {
		log.Fatal(err)
	}
}
