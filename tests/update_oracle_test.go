package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// updateModel is what the file holding old holds after updateRun's steps
// (with flags, as updateRun takes them).
func updateModel(t *testing.T, old []byte, flags string, steps []string) []byte {
	t.Helper()
	model := bytes.Clone(old)
	var pos int64
	num := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	put := func(off int64, p []byte) {
		if end := off + int64(len(p)); end > int64(len(model)) {
			model = append(model, make([]byte, end-int64(len(model)))...)
		}
		copy(model[off:], p)
	}
	for i, step := range steps {
		switch {
		case step == "sync":
		case strings.HasPrefix(step, "w@"):
			off, n, _ := strings.Cut(step[2:], ":")
			put(num(off), bytes.Repeat([]byte{byte(0xA0 + i)}, int(num(n))))
		case strings.HasPrefix(step, "a:"):
			if strings.Contains(flags, "append") {
				pos = int64(len(model))
			}
			n := num(step[2:])
			put(pos, bytes.Repeat([]byte{byte(0xA0 + i)}, int(n)))
			pos += n
		case strings.HasPrefix(step, "t:"):
			if n := num(step[2:]); n <= int64(len(model)) {
				model = model[:n]
			} else {
				model = append(model, make([]byte, n-int64(len(model)))...)
			}
		}
	}
	return model
}

// Updates in place leave volumes fsck.fat -n and fsck.exfat -n call
// clean, and files mtools (on FAT) and fcat read as the update left them:
// writes within a sector, across sectors and clusters, past the end (in
// the last cluster, into new clusters past the run, over a gap), append,
// truncate down and up, with clusters of 512 bytes and 4 KiB.
func TestUpdateOracles(t *testing.T) {
	need(t, "fsck.fat", "fsck.exfat", "mtype")
	cases := []struct {
		name  string
		size  int
		flags string
		steps []string
	}{
		{"within a sector", 5000, "rw", []string{"w@100:10"}},
		{"across sectors and clusters", 5000, "rw", []string{"w@500:3000"}},
		{"past the end", 5000, "rw", []string{"w@4900:9000"}},
		{"gap", 1000, "rw", []string{"w@30000:700"}},
		{"append", 1000, "append", []string{"a:100", "a:20000", "a:1"}},
		{"empty file", 0, "rw", []string{"a:100", "a:9000"}},
		{"truncate down", 40000, "rw", []string{"t:700"}},
		{"truncate to zero", 40000, "rw", []string{"t:0"}},
		{"truncate up", 700, "rw", []string{"t:30000"}},
		{"truncate down then grow", 40000, "rw", []string{"t:700", "w@3000:40000"}},
		{"grow, sync, grow", 1000, "append", []string{"a:9000", "sync", "a:30000"}},
	}
	for _, typ := range []string{"fat16", "exfat"} {
		for _, cs := range []string{"512", "4096"} {
			for _, tc := range cases {
				t.Run(typ+"/"+cs+"/"+tc.name, func(t *testing.T) {
					dir := t.TempDir()
					img := filepath.Join(dir, "disk.img")
					if typ == "exfat" {
						ok(t, "fmkfs", "--type", "exfat", "--size", "8M", "--cluster-size", cs, img)
					} else {
						ok(t, "fmkfs", "--fat", "16", "--size", "16M", "--cluster-size", cs, img)
					}
					old := bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstu\n"), tc.size/32+1)[:tc.size]
					src := filepath.Join(dir, "f.bin")
					if err := os.WriteFile(src, old, 0o644); err != nil {
						t.Fatal(err)
					}
					ok(t, "fmkdir", "-i", img, "::/a")
					ok(t, "fcp", "-i", img, src, "::/a/f.bin")
					ok(t, "fcp", "-i", img, src, "::/b.bin") // right after: growth goes elsewhere
					ok(t, os.Args[0], append([]string{updateRunArg, img, "::/a/f.bin", tc.flags}, tc.steps...)...)
					model := updateModel(t, old, tc.flags, tc.steps)
					if typ == "exfat" {
						fsckExFAT(t, img, 0)
					} else {
						fsckClean(t, img, 0)
						got, err := exec.Command("mtype", "-i", img, "::/a/f.bin").Output()
						if err != nil {
							t.Fatalf("mtype: %v", err)
						}
						sameUpdate(t, "mtype", got, model)
					}
					ok(t, "fverify", img)
					sameUpdate(t, "fcat", []byte(run(t, "fcat", "-i", img, "::/a/f.bin").stdout), model)
					sameUpdate(t, "fcat b.bin", []byte(run(t, "fcat", "-i", img, "::/b.bin").stdout), old)
				})
			}
		}
	}
}

// sameUpdate fails t unless got (read by who) is want.
func sameUpdate(t *testing.T, who string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	t.Fatalf("%s reads %d bytes, want %d (first difference at byte %d)", who, len(got), len(want), i)
}
