package cmdutil

import (
	"fmt"
	"io"
	"strings"
	"sync"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// PartitionRule is how partitions are numbered, for messages about
// --partition.
const PartitionRule = "partitions are numbered from 1 as Linux numbers them (1-4 primary or the GPT's slots, 5 and up logical)"

var (
	announceMu sync.Mutex
	announced  = map[string]bool{}
)

// choosePartition is the partition to use on a disk when --partition is
// not given: 0 (the whole disk) when it has no partition table, the
// partition when exactly one holds a FAT or exFAT file system (said once
// per disk on w, naming which), and an error that lists them and asks
// for --partition N when several do. A partition holds FAT when its boot
// sector says so; when none does (a damaged one), its type decides.
func choosePartition(path string, w io.Writer, name string) (int, error) {
	n, err := autoPartition(path)
	if err != nil || n == 0 || w == nil {
		return n, err
	}
	announceMu.Lock()
	defer announceMu.Unlock()
	if !announced[path] {
		announced[path] = true
		Warn(w, name, "%s: using partition %d, the only %s partition of its table (--partition N chooses another)", path, n, familyOf(probeFAT(path, n)))
	}
	return n, nil
}

// familyOf is "exFAT" for an exFAT partition and "FAT" for the others
// (FAT12/16/32, or one only typed for FAT): an exFAT partition is not a
// FAT one to its user.
func familyOf(kind string) string {
	if kind == "exFAT" {
		return "exFAT"
	}
	return "FAT"
}

// autoPartition is choosePartition without the message.
func autoPartition(path string) (int, error) {
	pt, err := fio.ReadPartitions(path)
	if err != nil || len(pt.Partitions) == 0 {
		// No table (or none readable): the whole disk. Opening it says
		// what is wrong, if anything.
		return 0, nil
	}
	var probed, typed []fio.Partition
	var all []string
	for _, p := range pt.Partitions {
		if p.Problem != "" {
			// Named, so that the refusal says why (a disk image cut
			// short, say), never "it has partition :".
			all = append(all, fmt.Sprintf("%d (unusable: %s)", p.Index, p.Problem))
			continue
		}
		if p.Size <= 0 {
			continue
		}
		kind := probeFAT(path, p.Index)
		all = append(all, describePartition(p, kind))
		if kind != "" {
			probed = append(probed, p)
		}
		if p.MayHoldFAT() {
			typed = append(typed, p)
		}
	}
	cands := probed
	if len(cands) == 0 {
		cands = typed
	}
	switch len(cands) {
	case 1:
		return cands[0].Index, nil
	case 0:
		word := "partition"
		if len(all) > 1 {
			word = "partitions"
		}
		if len(all) == 0 {
			return 0, fmt.Errorf("%s holds %s without a usable partition: give IMAGE@@OFFSET", path, pt.Named())
		}
		return 0, fmt.Errorf("%s holds %s without a FAT or exFAT partition; it has %s %s: give --partition N, or IMAGE@@OFFSET",
			path, pt.Named(), word, andList(all))
	}
	var list []string
	families := map[string]bool{}
	for _, p := range cands {
		kind := probeFAT(path, p.Index)
		families[familyOf(kind)] = true
		list = append(list, describePartition(p, kind))
	}
	family := "FAT"
	if families["exFAT"] {
		family = "exFAT"
		if families["FAT"] {
			family = "FAT or exFAT"
		}
	}
	return 0, fmt.Errorf("%s holds %s with %d %s partitions, %s: give --partition N to choose one",
		path, pt.Named(), len(cands), family, andList(list))
}

// andList is "a", "a and b", "a, b and c".
func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// describePartition is "2 (FAT32, 256.0 MiB)".
func describePartition(p fio.Partition, kind string) string {
	if kind == "" {
		kind = fmt.Sprintf("type 0x%02X", p.Type)
		if p.Table == "gpt" {
			kind = "type " + p.TypeGUID
		}
	}
	return fmt.Sprintf("%d (%s, %s)", p.Index, kind, HumanSize(p.Size))
}

// probeFAT names the FAT type (or exFAT) whose boot sector starts
// partition n, or "" when it holds none.
func probeFAT(path string, n int) string {
	d, err := fio.Open(path, fio.Options{NoLock: true, Buffered: true, Partition: n})
	if err != nil {
		return ""
	}
	defer d.Close()
	b := make([]byte, min(d.Size(), 4096))
	if len(b) < 512 {
		return ""
	}
	if _, err := d.ReadAt(b, 0); err != nil {
		return ""
	}
	t, _, err := vol.ProbeBootSector(b)
	if err != nil {
		return ""
	}
	return t
}

// HumanSize writes a size in binary units with one decimal ("2.0 GiB"),
// as --stats and the progress bar count.
func HumanSize(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return Plural(int(n), "byte")
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// Plural is "1 file", "2 files", "0 files".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") && !strings.HasSuffix(word, "ey") {
		return fmt.Sprintf("%d %sies", n, word[:len(word)-1])
	}
	return fmt.Sprintf("%d %ss", n, word)
}
