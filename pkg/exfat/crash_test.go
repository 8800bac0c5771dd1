package exfat

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrashStates runs writers and snapshots the image at every barrier
// (the state a power cut there leaves once the device's cache is
// flushed), then holds every snapshot to fsck.exfat -n and to Check:
// at worst lost clusters and the dirty flag, every file readable with
// either its old or its new contents.
func TestCrashStates(t *testing.T) {
	type file struct {
		name string
		data []byte
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, v *Volume)
		// each name must read back as one of these contents when present
		want map[string][][]byte
	}{
		{"create", func(t *testing.T, v *Volume) {
			writeFile(t, v, "new.bin", pattern(10, 30000), 30000)
		}, map[string][][]byte{"new.bin": {pattern(10, 30000)}}},
		{"replace", func(t *testing.T, v *Volume) {
			writeFile(t, v, "b.bin", pattern(11, 70000), 0)
		}, map[string][][]byte{"b.bin": {pattern(2, 50000), pattern(11, 70000)}}},
		{"remove", func(t *testing.T, v *Volume) {
			if err := v.Remove("b.bin"); err != nil {
				t.Fatal(err)
			}
		}, map[string][][]byte{"b.bin": {pattern(2, 50000)}}},
		{"rename across", func(t *testing.T, v *Volume) {
			if err := v.Rename("b.bin", "dir/moved.bin"); err != nil {
				t.Fatal(err)
			}
		}, map[string][][]byte{"b.bin": {pattern(2, 50000)}, "dir/moved.bin": {pattern(2, 50000)}}},
		{"rename directory", func(t *testing.T, v *Volume) {
			if err := v.Mkdir("other", testTime); err != nil {
				t.Fatal(err)
			}
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := v.Rename("dir", "other/dir"); err != nil {
				t.Fatal(err)
			}
		}, map[string][][]byte{"dir/a.txt": {pattern(1, 10000)}, "other/dir/a.txt": {pattern(1, 10000)}}},
		{"fallocate fragmented", func(t *testing.T, v *Volume) {
			if _, err := v.Fallocate("frag.bin", 100000, FallocateOptions{}); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"grow directory", func(t *testing.T, v *Volume) {
			for i := range 150 {
				writeFile(t, v, fmt.Sprintf("dir/another file with a long name %d", i), []byte{byte(i)}, 1)
			}
		}, nil},
		{"fallocate contiguous", func(t *testing.T, v *Volume) {
			if _, err := v.Fallocate("b.bin", 200000, FallocateOptions{}); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"label and attributes", func(t *testing.T, v *Volume) {
			if err := v.SetLabel("crash"); err != nil {
				t.Fatal(err)
			}
			if err := v.SetAttr("b.bin", AttrHidden, 0); err != nil {
				t.Fatal(err)
			}
		}, map[string][][]byte{"b.bin": {pattern(2, 50000)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := baseImage(t)
			dir := t.TempDir()
			var snaps []string
			testHookBarrier = func() {
				b, err := os.ReadFile(img)
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, fmt.Sprintf("snap%d.img", len(snaps)))
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				snaps = append(snaps, p)
			}
			v := openVol(t, img, true)
			tc.run(t, v)
			closeVol(t, v)
			testHookBarrier = nil
			snaps = append(snaps, img)
			if len(snaps) < 3 {
				t.Fatalf("only %d barriers", len(snaps)-1)
			}
			for i, s := range snaps {
				rep := checkImage(t, s)
				renamed := false
				for _, p := range rep.Problems {
					switch {
					case p.Kind == KindLost || p.Kind == KindDirty:
					case p.Kind == KindRename || p.Kind == KindSize && strings.Contains(p.Message, "goes on past"):
						renamed = true
					default:
						t.Errorf("state %d of %d: %v", i, len(snaps), p)
					}
				}
				out, err := runTool(t, "fsck.exfat", "-n", s)
				if err != nil && !renamed {
					t.Fatalf("state %d of %d: fsck.exfat -n: %v\n%s", i, len(snaps), err, out)
				}
				if renamed {
					// An interrupted move (Repair keeps the file under one
					// name) or extension (Repair ends the chain where the
					// size does): then fsck.exfat is satisfied.
					rv := openVol(t, s, true)
					if _, err := Repair(rv, rep, RepairOptions{}); err != nil {
						t.Fatal(err)
					}
					closeVol(t, rv)
					fsckClean(t, s)
					if again := checkImage(t, s); !again.Clean() {
						t.Fatalf("state %d after Repair: %v", i, again.Problems)
					}
				}
				sv := openVol(t, s, false)
				for name, wants := range tc.want {
					f, err := sv.Open(name)
					if err != nil {
						continue
					}
					f.Close()
					got := readFile(t, sv, name)
					ok := false
					for _, w := range wants {
						ok = ok || bytes.Equal(got, w)
					}
					if !ok {
						t.Errorf("state %d: %s holds %d bytes that are neither its old nor its new contents", i, name, len(got))
					}
				}
				closeVol(t, sv)
			}
			t.Logf("%d states: %s", len(snaps), strings.Repeat(".", len(snaps)))
		})
	}
}
