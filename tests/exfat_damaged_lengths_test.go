package tests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/exfat"
	fio "github.com/ftools/ftools/pkg/io"
)

// corpusImage copies one image of the exFAT damaged corpus into a temp
// directory and returns its path and bytes.
func corpusImage(t *testing.T, name string) (string, []byte) {
	t.Helper()
	img := filepath.Join(t.TempDir(), name+".img")
	return img, gunzipTo(t, filepath.Join(exfatDamagedDir, name+".img.gz"), img)
}

// sameImage fails the test when the image is no longer want.
func sameImage(t *testing.T, img string, want []byte, what string) {
	t.Helper()
	got, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed the image", what)
	}
}

// TestExFATDataLengthPastHeap: a file whose DataLength exceeds the cluster
// heap is damage each command names (the file, the value, where it lies),
// never an empty file with exit 0: fls lists the rest and exits 1, fcat
// and fcp fail without output, frm refuses and leaves the image as it
// was, fverify reports it. 2^64-1 used to wrap round to 0 clusters: fls
// showed -1, fcat printed nothing, fcp made an empty file and frm
// removed the entry freeing nothing, all with exit 0.
func TestExFATDataLengthPastHeap(t *testing.T) {
	for _, tc := range []struct {
		image, file, other string
		length             uint64
	}{
		{"size-wraps", "HELLO.TXT", "BIG.BIN", 1<<64 - 1},
		{"size-past-heap", "BIG.BIN", "HELLO.TXT", 1 << 60},
	} {
		t.Run(tc.image, func(t *testing.T) {
			img, orig := corpusImage(t, tc.image)
			want := fmt.Sprintf("DataLength %d at 0x", tc.length)
			named := func(what, stderr string) {
				t.Helper()
				if !strings.Contains(stderr, tc.file) || !strings.Contains(stderr, want) || !strings.Contains(stderr, "exceeds the cluster heap") {
					t.Errorf("%s: stderr %q does not name %s, %q and the heap", what, stderr, tc.file, want)
				}
			}

			r := run(t, "fls", "-l", img+"::/")
			if r.code != 1 || strings.Contains(r.stdout, tc.file) || !strings.Contains(r.stdout, tc.other) || strings.Contains(r.stdout, " -1 ") {
				t.Errorf("fls -l: exit %d, want 1 listing %s and not %s:\n%s", r.code, tc.other, tc.file, r.stdout)
			}
			named("fls -l", r.stderr)

			r = run(t, "fcat", img+"::/"+tc.file)
			if r.code != 1 || r.stdout != "" {
				t.Errorf("fcat: exit %d, %d bytes out; want exit 1 and nothing", r.code, len(r.stdout))
			}
			named("fcat", r.stderr)

			out := t.TempDir()
			r = run(t, "fcp", "--no-progress", img+"::/"+tc.file, out)
			if r.code != 1 {
				t.Errorf("fcp: exit %d, want 1", r.code)
			}
			named("fcp", r.stderr)
			if _, err := os.Stat(filepath.Join(out, tc.file)); err == nil {
				t.Errorf("fcp left %s behind", tc.file)
			}

			for _, argv := range [][]string{{"frm", img + "::/" + tc.file}, {"frm", "-r", img + "::/" + tc.file}} {
				r = run(t, argv[0], argv[1:]...)
				if r.code == 0 {
					t.Errorf("%s: exit 0, want a refusal", strings.Join(argv, " "))
				}
				named(strings.Join(argv, " "), r.stderr)
			}
			sameImage(t, img, orig, "frm's refusal")

			r = run(t, "fverify", img)
			if r.code == 0 || !strings.Contains(r.stdout, fmt.Sprintf("/%s: DataLength %d exceeds the cluster heap", tc.file, tc.length)) {
				t.Errorf("fverify: exit %d:\n%s", r.code, r.stdout)
			}
			sameImage(t, img, orig, "the read-only commands")
		})
	}
	t.Run("valid-past-size", func(t *testing.T) {
		// Which bytes were written is not known: the file is refused by
		// name, not read.
		img, _ := corpusImage(t, "valid-past-size")
		r := run(t, "fverify", img)
		if r.code == 0 || !strings.Contains(r.stdout, "/HELLO.TXT: valid data length 1099511627776 is greater than the size") {
			t.Errorf("fverify: exit %d:\n%s", r.code, r.stdout)
		}
		r = run(t, "fcat", img+"::/HELLO.TXT")
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "ValidDataLength 1099511627776 at 0x") {
			t.Errorf("fcat: exit %d, %d bytes out, stderr %q", r.code, len(r.stdout), r.stderr)
		}
		r = run(t, "fls", "-l", img+"::/")
		if r.code != 1 || !strings.Contains(r.stdout, "BIG.BIN") || !strings.Contains(r.stderr, "HELLO.TXT") {
			t.Errorf("fls -l: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// TestExFATBitmapLengthLoop: fverify on an allocation bitmap whose
// DataLength is 2^60 and whose FAT chain loops names the length, within
// the damaged corpus's memory bound; it used to size its walk from the
// length and grow its heap round the loop until it ran out.
func TestExFATBitmapLengthLoop(t *testing.T) {
	img, _ := corpusImage(t, "bitmap-huge-loop")
	rn := &boundedRunner{t: t}
	for _, argv := range [][]string{{"fverify", img}, {"fverify", "--repair", img}, {"fls", "-l", img + "::/"}} {
		r := rn.run(argv[0], argv[1:]...)
		if argv[0] == "fverify" && (r.code == 0 || !strings.Contains(r.stdout, "the allocation bitmap's DataLength 1152921504606846976 exceeds the cluster heap")) {
			t.Errorf("%s: exit %d:\n%s", strings.Join(argv, " "), r.code, r.stdout)
		}
	}
}

// TestExFATAllocationKeepsFileClusters: when the bitmap wrongly marks a
// file's clusters free (fsck.exfat -y keeps the file), no writer hands
// them out: fmkdir used to zero the file's first cluster, and fcp and
// ffallocate to give its clusters to the new file.
func TestExFATAllocationKeepsFileClusters(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "f.bin")
	writeFile(t, data, 5000, 9)
	want, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "g.bin")
	writeFile(t, small, 9000, 10)
	for _, tc := range []struct {
		name string
		argv func(img string) []string
	}{
		{"fmkdir", func(img string) []string { return []string{"fmkdir", img + "::/d"} }},
		{"fcp", func(img string) []string { return []string{"fcp", "--no-progress", small, img + "::/g.bin"} }},
		{"ffallocate", func(img string) []string { return []string{"ffallocate", "-l", "64K", img + "::/h"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := newExFAT(t, "8M")
			ok(t, "fcp", "--no-progress", data, img+"::/f.bin")
			var list struct {
				Entries []struct {
					Name  string `json:"name"`
					First uint32 `json:"first_cluster"`
				} `json:"entries"`
			}
			jsonOut(t, &list, "fls", "--json", img+"::/")
			if len(list.Entries) != 1 || list.Entries[0].First < 2 {
				t.Fatalf("fls --json: %+v", list)
			}
			first := int(list.Entries[0].First)
			b, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			v := parseXvol(b) // fmkfs puts the bitmap in cluster 2
			v.setBit(first, false)
			v.setBit(first+1, false)
			if err := os.WriteFile(img, v.b, 0o644); err != nil {
				t.Fatal(err)
			}

			ok(t, tc.argv(img)[0], tc.argv(img)[1:]...)
			if got := ok(t, "fcat", img+"::/f.bin"); got != string(want) {
				t.Errorf("%s changed f.bin's bytes", tc.name)
			}
			r := run(t, "fverify", "--json", img)
			if strings.Contains(r.stdout, `"cross-link"`) || !strings.Contains(r.stdout, `"free"`) {
				t.Errorf("fverify after %s: want only the bitmap's free marks:\n%s", tc.name, r.stdout)
			}
		})
	}
}

// streamOf reads a file's stream extension with pkg/exfat.
func streamOf(t *testing.T, img, name string) exfat.StreamEntry {
	t.Helper()
	dev, err := fio.Open(img, fio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	v, err := exfat.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	fi, err := v.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*exfat.Record).Set.Stream
}

// TestExFATFallocateValidLength: ffallocate zeroes the new space and makes
// it valid data, so that Linux before 6.8 (which reports a file's size
// from its ValidDataLength) sees the size; --no-zero keeps the valid data
// length, and says the old contents stay hidden.
func TestExFATFallocateValidLength(t *testing.T) {
	img := newExFAT(t, "16M")
	dir := t.TempDir()
	head := filepath.Join(dir, "head")
	writeFile(t, head, 513, 4)
	headBytes, err := os.ReadFile(head)
	if err != nil {
		t.Fatal(err)
	}
	ok(t, "ffallocate", "-l", "3M", img+"::/new")
	ok(t, "fcp", "--no-progress", head, img+"::/grown")
	ok(t, "ffallocate", "-l", "5M", img+"::/grown")
	ok(t, "fcp", "--no-progress", head, img+"::/nozero")
	ok(t, "ffallocate", "--no-zero", "-l", "1M", img+"::/nozero")
	fsckExFAT(t, img, 0)
	for _, tc := range []struct {
		name        string
		size, valid uint64
	}{
		{"new", 3 << 20, 3 << 20},
		{"grown", 5 << 20, 5 << 20},
		{"nozero", 1 << 20, 513},
	} {
		s := streamOf(t, img, tc.name)
		if s.DataLength != tc.size || s.ValidDataLength != tc.valid {
			t.Errorf("%s: DataLength %d, ValidDataLength %d; want %d, %d", tc.name, s.DataLength, s.ValidDataLength, tc.size, tc.valid)
		}
		got := []byte(ok(t, "fcat", img+"::/"+tc.name))
		start := 0
		if tc.name != "new" {
			start = 513
			if len(got) < start || !bytes.Equal(got[:start], headBytes) {
				t.Errorf("%s: its first 513 bytes changed", tc.name)
				continue
			}
		}
		if uint64(len(got)) != tc.size || bytes.Count(got[start:], []byte{0}) != len(got)-start {
			t.Errorf("%s: %d bytes, those past %d not all zeros", tc.name, len(got), start)
		}
	}
	if help := ok(t, "ffallocate", "--help"); !strings.Contains(help, "exFAT: they stay hidden past the valid data length") {
		t.Errorf("ffallocate --help does not say --no-zero keeps exFAT's old contents hidden:\n%s", help)
	}
}
