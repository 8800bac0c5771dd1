package tests

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/exfat"
	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// updateRunArg makes the test binary update one file in place through
// pkg/vol (no command does yet), so that the replay tests can record its
// writes: os.Args[2:] are the image, the volume path, the open flags
// ("rw", "append", "create") and the steps, each "w@OFF:N" (N bytes at
// OFF), "a:N" (N bytes with Write), "t:N" (Truncate), "sync" (the
// file's) or "commit" (the volume's).
const updateRunArg = "-ftools-update-run"

func init() {
	if len(os.Args) > 2 && os.Args[1] == updateRunArg {
		if err := updateRun(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// updateRun opens the image as the commands do (the write log follows
// fio's environment) and runs the steps.
func updateRun(args []string) (err error) {
	if len(args) < 3 {
		return fmt.Errorf("usage: IMAGE PATH FLAGS STEPS...")
	}
	dev, err := fio.Open(args[0], fio.Options{Write: true, Sync: fio.SyncClose})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := dev.Close(); err == nil {
			err = cerr
		}
	}()
	v, err := vol.Open(dev)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := v.Close(); err == nil {
			err = cerr
		}
	}()
	flag := os.O_WRONLY
	for _, f := range strings.Split(args[2], ",") {
		switch f {
		case "rw":
		case "append":
			flag |= os.O_APPEND
		case "create":
			flag |= os.O_CREATE
		default:
			return fmt.Errorf("unknown flag %q", f)
		}
	}
	u, err := v.OpenFile(args[1], flag)
	if err != nil {
		return err
	}
	for i, step := range args[3:] {
		num := func(s string) int64 {
			n, perr := strconv.ParseInt(s, 10, 64)
			if perr != nil && err == nil {
				err = fmt.Errorf("step %q: %v", step, perr)
			}
			return n
		}
		data := func(n int64) []byte { return bytes.Repeat([]byte{byte(0xA0 + i)}, int(n)) }
		var serr error
		switch {
		case step == "sync":
			serr = u.Sync()
		case step == "commit":
			serr = v.Commit() // the volume's, with the file still open
		case strings.HasPrefix(step, "w@"):
			off, n, _ := strings.Cut(step[2:], ":")
			_, serr = u.WriteAt(data(num(n)), num(off))
		case strings.HasPrefix(step, "a:"):
			_, serr = u.Write(data(num(step[2:])))
		case strings.HasPrefix(step, "t:"):
			serr = u.Truncate(num(step[2:]))
		default:
			return fmt.Errorf("unknown step %q", step)
		}
		if err != nil {
			return err
		}
		if serr != nil {
			return fmt.Errorf("step %q: %w", step, serr)
		}
	}
	return u.Close()
}

// updateArgs is the recorded run of an update.
func updateArgs(path, flags string, steps ...string) []string {
	return append([]string{os.Args[0], updateRunArg, "IMG", path, flags}, steps...)
}

// sectorsOldOrNew reports whether data, a crash state's file, is as long
// as old or nw or in between (a Sync between writes records the file's
// size then) and holds in each 512-byte sector the bytes of one of them
// (a sector past the end of one is the other's).
func sectorsOldOrNew(data, old, nw []byte) bool {
	if len(data) < min(len(old), len(nw)) || len(data) > max(len(old), len(nw)) {
		return false
	}
	for off := 0; off < len(data); off += 512 {
		end := min(off+512, len(data))
		got := data[off:end]
		if (end > len(old) || !bytes.Equal(got, old[off:end])) && (end > len(nw) || !bytes.Equal(got, nw[off:end])) {
			return false
		}
	}
	return true
}

// The files the update cases change, in the old tree both file systems'
// cases start from.
const (
	upd9000  = "::/old/file with a long name 04.bin"
	upd40000 = "::/old/sub folder/file with a long name 05.bin"
	upd700   = "::/old/sub folder/file with a long name 02.bin"
)

// updatePaths are upd* as the tree names them.
func updatePaths(paths ...string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, strings.TrimPrefix(p, "::/"))
	}
	return out
}

// updateReplayCases are the in-place updates on FAT32 and FAT16: writes
// over sectors (partial at both ends) and clusters, growth past the run
// (the next file's clusters follow), a gap, a truncate down and up.
func updateReplayCases() []*replayCase {
	// A chain longer than the file's size: grown clusters linked before
	// the size is written, or clusters to free after the smaller size.
	longer := func(paths ...string) []*regexp.Regexp {
		var out []*regexp.Regexp
		for _, p := range updatePaths(paths...) {
			// fsck.fat names the folders by their short names.
			out = append(out, regexp.MustCompile(`^/.*/`+regexp.QuoteMeta(path.Base(p))+`$`))
		}
		return append(out,
			regexp.MustCompile(`^  File size is \d+ bytes, cluster chain length is > \d+ bytes\.$`),
			regexp.MustCompile(`^  Truncating file to \d+ bytes\.$`))
	}
	var out []*replayCase
	for _, ft := range []string{"32", "16"} {
		out = append(out,
			&replayCase{name: "update-write-append-fat" + ft, fat: ft, prepare: oldTree,
				args:    updateArgs(upd9000, "rw", "w@1000:3000", "w@8900:100", "w@9000:5000"),
				inPlace: updatePaths(upd9000), allowFsck: longer(upd9000), allowKinds: []string{fat.KindSize}, minFlushes: 3},
			&replayCase{name: "update-commit-while-open-fat" + ft, fat: ft, prepare: oldTree,
				args:    updateArgs(upd9000, "rw", "w@9000:5000", "commit", "w@100:10", "w@14000:3000"),
				inPlace: updatePaths(upd9000), allowFsck: longer(upd9000), allowKinds: []string{fat.KindSize}, minFlushes: 3},
			&replayCase{name: "update-truncate-down-fat" + ft, fat: ft, prepare: oldTree,
				args:    updateArgs(upd40000, "rw", "t:1000", "w@0:100"),
				inPlace: updatePaths(upd40000), allowFsck: longer(upd40000), allowKinds: []string{fat.KindSize}, minFlushes: 3},
			&replayCase{name: "update-gap-truncate-up-fat" + ft, fat: ft, prepare: oldTree,
				args:    updateArgs(upd700, "rw", "w@20000:700", "t:30000"),
				inPlace: updatePaths(upd700), allowFsck: longer(upd700), allowKinds: []string{fat.KindSize}, minFlushes: 3},
		)
	}
	return out
}

func TestReplayUpdate(t *testing.T) {
	for i, rc := range updateReplayCases() {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			rr := recordRun(t, rc)
			n, err := rr.replay(t, uint64(100+i))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}

// exfatUpdateReplayCases are the in-place updates on exFAT: a NoFatChain
// file that grows past its run (and becomes chained), a write past the
// valid data length, a truncate down and up.
func exfatUpdateReplayCases() []*replayCase {
	return []*replayCase{
		{name: "exfat-update-write-append", prepare: exfatOldTree,
			args:    updateArgs(upd9000, "rw", "w@1000:3000", "w@8900:100", "w@9000:5000"),
			inPlace: updatePaths(upd9000), allowFsck: exfatLonger, allowKinds: []string{exfat.KindSize}, minFlushes: 3},
		{name: "exfat-update-commit-while-open", prepare: exfatOldTree,
			args:    updateArgs(upd9000, "rw", "w@9000:5000", "commit", "w@100:10", "w@14000:3000"),
			inPlace: updatePaths(upd9000), allowFsck: exfatLonger, allowKinds: []string{exfat.KindSize}, minFlushes: 3},
		{name: "exfat-update-truncate-down", prepare: exfatOldTree,
			args:    updateArgs(upd40000, "rw", "t:1000", "w@0:100"),
			inPlace: updatePaths(upd40000), allowFsck: exfatLonger, allowKinds: []string{exfat.KindSize}, minFlushes: 3},
		{name: "exfat-update-gap-truncate-up", prepare: exfatOldTree,
			args:    updateArgs(upd700, "rw", "w@20000:700", "t:30000"),
			inPlace: updatePaths(upd700), allowFsck: exfatLonger, allowKinds: []string{exfat.KindSize}, minFlushes: 3},
		{name: "exfat-update-grow-twice", prepare: exfatOldTree,
			args:    updateArgs(upd9000, "append", "a:5000", "sync", "a:70000"),
			inPlace: updatePaths(upd9000), allowFsck: exfatLonger, allowKinds: []string{exfat.KindSize}, minFlushes: 3},
	}
}

func TestExFATReplayUpdate(t *testing.T) {
	for i, rc := range exfatUpdateReplayCases() {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			rc.exfat = true
			rr := recordExFAT(t, rc)
			n, err := rr.replay(t, uint64(200+i))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}
