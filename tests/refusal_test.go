package tests

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A writer plans and checks everything it will touch first: a refusal
// leaves the image byte-identical, without a single write (the dirty bit is
// set at the first real write, not when the volume opens), and a damaged
// tree is refused before anything in it changes.

// refusalImage makes a small volume of the given kind ("16", "32" or
// "exfat") holding /D/SUB/F (three clusters and a bit), /D/G and /E.
func refusalImage(t *testing.T, kind string) string {
	t.Helper()
	dir := t.TempDir()
	img := filepath.Join(dir, "r.img")
	if kind == "exfat" {
		ok(t, "fmkfs", "--type", "exfat", "--size", "8M", "--cluster-size", "4K", img)
	} else {
		ok(t, "fmkfs", "--fat", kind, "--size", map[string]string{"16": "20M", "32": "72M"}[kind], "--cluster-size", "1K", img)
	}
	src := filepath.Join(dir, "src")
	n := 3*1024 + 100
	if kind == "exfat" {
		n = 3*4096 + 100
	}
	writeFile(t, src, n, 7)
	ok(t, "fmkdir", "-i", img, "::/D", "::/D/SUB", "::/E")
	ok(t, "fcp", "-i", img, src, "::/D/SUB/F")
	ok(t, "fcp", "-i", img, src, "::/D/G")
	return img
}

// unchanged runs a command that must fail, and fails the test unless the
// image is byte-identical afterwards and was not written at all (its
// modification time, set into the past first, is kept). It returns the
// command's stderr.
func unchanged(t *testing.T, img string, name string, args ...string) string {
	t.Helper()
	return untouched(t, img, func() string { return fails(t, name, args...) }, name, args...)
}

// untouched runs run (which runs the command), and fails the test unless
// the image is byte-identical afterwards and was not written at all.
func untouched(t *testing.T, img string, run func() string, name string, args ...string) string {
	t.Helper()
	past := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(img, past, past); err != nil {
		t.Fatal(err)
	}
	before := imageSum(t, img)
	msg := run()
	if imageSum(t, img) != before {
		t.Errorf("%s %s: (%s) changed the image", name, strings.Join(args, " "), strings.TrimSpace(msg))
	} else if fi, err := os.Stat(img); err != nil {
		t.Fatal(err)
	} else if !fi.ModTime().Equal(past) {
		t.Errorf("%s %s: (%s) wrote to the image (set the dirty bit and cleared it?)", name, strings.Join(args, " "), strings.TrimSpace(msg))
	}
	return msg
}

// Refused changes write nothing: fmkdir of an existing name, frmdir of a
// non-empty directory, frm and fattrib of a missing path, fmv refused,
// flabel refused, ffallocate with no room.
func TestRefusalWritesNothing(t *testing.T) {
	for _, kind := range []string{"16", "32", "exfat"} {
		t.Run(kind, func(t *testing.T) {
			img := refusalImage(t, kind)
			badLabel := "BAD*LABEL"
			if kind == "exfat" {
				badLabel = "twelve chars"
			}
			for _, args := range [][]string{
				{"fmkdir", "-i", img, "::/D"},
				{"fmkdir", "-p", "-i", img, "::/D/G/x"},
				{"frmdir", "-i", img, "::/D"},
				{"frmdir", "-i", img, "::/nope"},
				{"frm", "-i", img, "::/nope"},
				{"frm", "-i", img, "::/D"},
				{"frm", "-r", "-i", img, "::/"},
				{"fattrib", "+h", "-i", img, "::/nope"},
				{"fattrib", "+h", "-/", "-i", img, "::/nope"},
				{"fmv", "-i", img, "::/nope", "::/x"},
				{"fmv", "-i", img, "::/D", "::/D/SUB/x"},
				{"flabel", "-i", img, badLabel},
				{"ffallocate", "-l", "1G", "-i", img, "::/big"},
				{"ffallocate", "-l", "1G", "-i", img, "::/D/G"},
			} {
				unchanged(t, img, args[0], args[1:]...)
			}
		})
	}
}

// loopFAT points the entry of /D/SUB at /D's own cluster: /D/SUB leads
// back to /D.
func loopFAT(t *testing.T, img string) {
	patchImage(t, img, func(v *gvol) {
		d := v.cluster(v.find(0, "D          "))
		v.setCluster(v.find(d, "SUB        "), d)
	})
}

// loopExFAT points /D/SUB's stream extension at /D's clusters.
func loopExFAT(t *testing.T, img string) {
	b := readImage(t, img)
	v := parseXvol(b)
	d := v.rootSet("D")
	sub := v.find(v.subSlots(d), "SUB")
	copy(b[sub.stream()+20:sub.stream()+32], b[d.stream()+20:d.stream()+32])
	v.fixSum(sub)
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// brokenChain damages /D/SUB/F's chain: "free" links its second cluster to
// a free one, "loop" links its last cluster back to its first. On exFAT,
// where F is one contiguous run without a FAT chain, "free" clears its
// NoFatChain flag, so that its chain starts in free FAT entries, and "loop"
// gives it a chain whose second cluster links back to the first.
func brokenChain(t *testing.T, img, kind, how string) {
	t.Helper()
	if kind == "exfat" {
		b := readImage(t, img)
		v := parseXvol(b)
		sub := v.find(v.subSlots(v.rootSet("D")), "SUB")
		f := v.find(v.subSlots(sub), "F")
		if how == "loop" {
			first := v.first(f)
			v.chainFileSet(f)
			v.setFAT(first+1, first)
		} else {
			b[f.stream()+1] &^= 0x02
			v.fixSum(f)
		}
		if err := os.WriteFile(img, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	patchImage(t, img, func(v *gvol) {
		d := v.cluster(v.find(0, "D          "))
		sub := v.cluster(v.find(d, "SUB        "))
		chain := v.chain(v.cluster(v.find(sub, "F          ")))
		if len(chain) != 4 {
			t.Fatalf("F has %d clusters, want 4", len(chain))
		}
		if how == "loop" {
			v.set(chain[3], chain[0])
		} else {
			v.set(chain[1], 0)
		}
	})
}

// chainFileSet gives the file of set s a FAT chain over its clusters and
// clears NoFatChain, as a fragmented file has (chainFile: a root file).
func (v *xvol) chainFileSet(s xset) {
	first := v.first(s)
	n := (int(binary.LittleEndian.Uint64(v.b[s.stream()+24:])) + v.cs - 1) / v.cs
	for i := range n {
		next := first + i + 1
		if i == n-1 {
			next = 0xFFFFFFFF
		}
		v.setFAT(first+i, next)
	}
	v.b[s.stream()+1] &^= 0x02
	v.fixSum(s)
}

// On a tree where /D/SUB points back at /D, fattrib -/ and frm -r refuse,
// naming the path, and leave the image byte-identical (fattrib used to set
// the attribute on /D and /D/SUB and exit 1; frm removed /D, left its
// clusters lost and said "cannot remove").
func TestLoopedTreeRefused(t *testing.T) {
	for _, kind := range []string{"16", "32", "exfat"} {
		t.Run(kind, func(t *testing.T) {
			img := refusalImage(t, kind)
			if kind == "exfat" {
				loopExFAT(t, img)
			} else {
				loopFAT(t, img)
			}
			for _, args := range [][]string{
				{"fattrib", "+h", "-/", "-i", img, "::/D"},
				{"fattrib", "+h", "-/", "-i", img, "::/"},
				{"frm", "-r", "-i", img, "::/D"},
			} {
				msg := unchanged(t, img, args[0], args[1:]...)
				if !strings.Contains(msg, "D/SUB") {
					t.Errorf("%s: the refusal does not name D/SUB: %s", strings.Join(args, " "), msg)
				}
			}
			// The rest of the volume is still usable.
			ok(t, "fattrib", "+h", "-/", "-i", img, "::/E")
			ok(t, "frm", "-r", "-i", img, "::/E")
		})
	}
}

// frm -r of a directory with a chain inside that runs into a free cluster
// or loops is refused byte-identically, naming the file (it used to remove
// the tree, leave the chain's clusters lost and report a failure).
func TestRemoveTreeWithBrokenChain(t *testing.T) {
	for _, kind := range []string{"16", "32", "exfat"} {
		for _, how := range []string{"free", "loop"} {
			t.Run(kind+"-"+how, func(t *testing.T) {
				img := refusalImage(t, kind)
				brokenChain(t, img, kind, how)
				msg := unchanged(t, img, "frm", "-r", "-i", img, "::/D")
				if !strings.Contains(msg, "D/SUB/F") || !strings.Contains(msg, "fverify") {
					t.Errorf("the refusal does not name D/SUB/F and point at fverify: %s", msg)
				}
				// The file alone is refused as well, without a write, where
				// its chain cannot be followed (exFAT's loop lies within the
				// file's length: the clusters walked are F's alone, and go).
				if kind != "exfat" || how != "loop" {
					unchanged(t, img, "frm", "-i", img, "::/D/SUB/F")
				}
				// The undamaged part of the tree goes as usual.
				ok(t, "frm", "-r", "-i", img, "::/D/G", "::/E")
				if kind == "exfat" {
					return
				}
				// fverify --repair fixes the chain; then the tree goes and
				// fsck.fat finds nothing lost.
				run(t, "fverify", "--repair", img)
				ok(t, "frm", "-r", "-i", img, "::/D")
				fsckClean(t, img, 0)
			})
		}
	}
}

// A change to what a volume already holds writes nothing either: fsinfo
// --recount of a right free count, --next-cluster of the hint it has.
func TestNoOpChangeWritesNothing(t *testing.T) {
	img := refusalImage(t, "32")
	ok(t, "fsinfo", "--recount", img)
	for _, args := range [][]string{
		{"--recount", img},
		{"--next-cluster", "100", img},
	} {
		ok(t, "fsinfo", args...)
		untouched(t, img, func() string { return ok(t, "fsinfo", args...) }, "fsinfo", args...)
	}
}

// Overwriting a file whose chain is broken is refused before anything is
// allocated or written (it used to fail in Writer.Close, leaking the new
// file's clusters), and the refusal points at fverify.
func TestOverwriteBrokenFileLeaksNothing(t *testing.T) {
	img, _ := verbsImage(t, "16")
	patchImage(t, img, func(v *gvol) {
		c := v.cluster(v.find(0, "A       TXT"))
		v.set(c+1, 0) // the chain now runs into a free cluster
	})
	before := imageSum(t, img)
	src := filepath.Join(t.TempDir(), "new")
	writeFile(t, src, 3000, 9)
	msg := fails(t, "fcp", src, img+"::/A.TXT")
	if !strings.Contains(msg, "fverify") {
		t.Fatalf("refusal does not point at fverify: %q", msg)
	}
	if imageSum(t, img) != before {
		t.Fatal("the refused overwrite changed the image (leaked clusters)")
	}
}

// A directory whose own chain is broken is not written to: the refusal names
// fverify and the image stays as it was.
func TestBrokenDirectoryChainRefused(t *testing.T) {
	img, _ := verbsImage(t, "16")
	for i := 0; i < 20; i++ { // DIR grows past one 512-byte cluster
		ok(t, "fmkdir", "-i", img, fmt.Sprintf("::/DIR/D%02d", i))
	}
	patchImage(t, img, func(v *gvol) {
		ch := v.chain(v.cluster(v.find(0, "DIR        ")))
		if len(ch) < 2 {
			t.Fatalf("DIR has %d clusters", len(ch))
		}
		v.set(ch[1], 0)
	})
	before := imageSum(t, img)
	src := filepath.Join(t.TempDir(), "f")
	writeFile(t, src, 100, 1)
	if msg := fails(t, "fcp", src, img+"::/DIR/NEW.TXT"); !strings.Contains(msg, "fverify") {
		t.Fatalf("refusal does not point at fverify: %q", msg)
	}
	if imageSum(t, img) != before {
		t.Fatal("the refused copy changed the image")
	}
}
