package tests

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fcp puts a copy where GNU cp puts it: each case runs cp on a host
// folder and fcp on a FAT and an exFAT image that hold the same folders,
// and the two must agree on success and on what the destination holds
// afterwards. cp makes no missing directory: not DEST's parents, not DEST
// for several sources, not DEST/ for a file; a directory copied to a DEST/
// that does not exist becomes DEST.
func TestFcpPathsAsCp(t *testing.T) {
	need(t, "cp", "mcopy", "fsck.fat", "fsck.exfat")
	cases := []struct {
		name string
		pre  []string // folders DEST's side holds before the copy
		rec  bool
		srcs []string // in the source tree: src/a, src/s/b, A/x, f1
		dst  string
		ok   bool // cp (and so fcp) succeeds
	}{
		{"dir to a missing dir/", nil, true, []string{"src"}, "new/", true},
		{"dir to an existing dir/", []string{"new"}, true, []string{"src"}, "new/", true},
		{"dir/. to a missing dir/", nil, true, []string{"src/."}, "new/", true},
		{"dir to a missing dir", nil, true, []string{"A"}, "D", true},
		{"dir to a missing dir/ in a folder", []string{"E"}, true, []string{"src"}, "E/new/", true},
		{"file to a missing dir/", nil, false, []string{"f1"}, "D/", false},
		{"file to a missing dir/ with -r", nil, true, []string{"f1"}, "D/", false},
		{"file into a missing folder", nil, false, []string{"f1"}, "D/x", false},
		{"file into a missing folder with -r", nil, true, []string{"f1"}, "D/x", false},
		{"dir into missing parents", []string{"D"}, true, []string{"A"}, "D/x/y", false},
		{"dir to a missing dir/ in a missing folder", nil, true, []string{"src"}, "X/new/", false},
		{"several to a missing dir/", nil, true, []string{"src", "A"}, "new/", false},
		{"several to a missing dir", nil, true, []string{"f1", "A"}, "new", false},
		{"several into an existing dir", []string{"new"}, true, []string{"f1", "A"}, "new", true},
	}
	// What fcp's message says, where it fails.
	says := map[string]string{
		"file to a missing dir/":                    "cannot create regular file",
		"file to a missing dir/ with -r":            "cannot create regular file",
		"file into a missing folder":                "does not exist",
		"file into a missing folder with -r":        "does not exist",
		"dir into missing parents":                  "does not exist",
		"dir to a missing dir/ in a missing folder": "does not exist",
		"several to a missing dir/":                 "it does not exist",
		"several to a missing dir":                  "it does not exist",
	}
	srcRoot := t.TempDir()
	for _, f := range []string{"src/a", "src/s/b", "A/x", "f1"} {
		p := filepath.Join(srcRoot, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, 100+len(f)*37, byte(len(f)))
	}
	srcArgs := func(srcs []string) []string {
		var out []string
		for _, s := range srcs {
			p := filepath.Join(srcRoot, s)
			if strings.HasSuffix(s, "/.") {
				p += "/."
			}
			out = append(out, p)
		}
		return out
	}
	// Copying out: the same tree in an image, the same cases into a host
	// folder.
	srcImg := filepath.Join(t.TempDir(), "src.img")
	ok(t, "fmkfs", "--size", "8M", srcImg)
	ok(t, "fcp", "-r", "-i", srcImg, srcRoot+"/.", "::/")
	for _, tc := range cases {
		t.Run("out/"+tc.name, func(t *testing.T) {
			host, out := t.TempDir(), t.TempDir()
			for _, d := range tc.pre {
				mustMkdir(t, filepath.Join(host, d), filepath.Join(out, d))
			}
			var flags []string
			if tc.rec {
				flags = append(flags, "-r")
			}
			cpArgs := append(append(append([]string{}, flags...), srcArgs(tc.srcs)...), host+"/"+tc.dst)
			if r := run(t, "cp", cpArgs...); (r.code == 0) != tc.ok {
				t.Fatalf("cp %s: exit %d, the case says ok=%v: %s", strings.Join(cpArgs, " "), r.code, tc.ok, r.stderr)
			}
			args := append([]string{"-i", srcImg}, flags...)
			for _, s := range tc.srcs {
				args = append(args, "::/"+s)
			}
			args = append(args, out+"/"+tc.dst)
			r := run(t, "fcp", args...)
			if (r.code == 0) != tc.ok {
				t.Fatalf("fcp %s: exit %d, but cp's was %v:\n%s", strings.Join(args, " "), r.code, !tc.ok, r.stderr)
			}
			if !tc.ok && !strings.Contains(r.stderr, says[tc.name]) {
				t.Fatalf("fcp's message does not say %q:\n%s", says[tc.name], r.stderr)
			}
			want, got := hostTree(t, host), hostTree(t, out)
			if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want))) {
				t.Fatalf("fcp made %q, cp made %q", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			for p, data := range want {
				if !bytes.Equal(got[p], data) {
					t.Fatalf("%s differs from cp's copy", p)
				}
			}
		})
	}
	for _, exfat := range []bool{false, true} {
		for _, tc := range cases {
			name := "fat/" + tc.name
			if exfat {
				name = "exfat/" + tc.name
			}
			t.Run(name, func(t *testing.T) {
				// GNU cp on the host.
				host := t.TempDir()
				for _, d := range tc.pre {
					mustMkdir(t, filepath.Join(host, d))
				}
				var cpArgs []string
				if tc.rec {
					cpArgs = append(cpArgs, "-r")
				}
				cpArgs = append(append(cpArgs, srcArgs(tc.srcs)...), host+"/"+tc.dst)
				if r := run(t, "cp", cpArgs...); (r.code == 0) != tc.ok {
					t.Fatalf("cp %s: exit %d, the case says ok=%v: %s", strings.Join(cpArgs, " "), r.code, tc.ok, r.stderr)
				}
				want := hostTree(t, host)

				// fcp on an image.
				img := filepath.Join(t.TempDir(), "v.img")
				if exfat {
					ok(t, "fmkfs", "--type", "exfat", "--size", "8M", img)
				} else {
					ok(t, "fmkfs", "--size", "8M", img)
				}
				for _, d := range tc.pre {
					ok(t, "fmkdir", "-i", img, "::/"+d)
				}
				args := []string{"-i", img}
				if tc.rec {
					args = append(args, "-r")
				}
				args = append(append(args, srcArgs(tc.srcs)...), "::/"+tc.dst)
				r := run(t, "fcp", args...)
				if (r.code == 0) != tc.ok {
					t.Fatalf("fcp %s: exit %d, but cp's was %v:\n%s", strings.Join(args, " "), r.code, !tc.ok, r.stderr)
				}
				if !tc.ok && !strings.Contains(r.stderr, says[tc.name]) {
					t.Fatalf("fcp's message does not say %q:\n%s", says[tc.name], r.stderr)
				}
				got, err := readVolume(img)
				if err != nil {
					t.Fatal(err)
				}
				gotPaths := slices.Sorted(func(yield func(string) bool) {
					for p := range got.dirs {
						if p != "." && !yield(p+"/") {
							return
						}
					}
					for p := range got.files {
						if !yield(p) {
							return
						}
					}
				})
				if !slices.Equal(gotPaths, slices.Sorted(maps.Keys(want))) {
					t.Fatalf("the image holds %q, cp made %q", gotPaths, slices.Sorted(maps.Keys(want)))
				}
				for p, data := range want {
					if strings.HasSuffix(p, "/") {
						continue
					}
					if !bytes.Equal(got.files[p], data) {
						t.Fatalf("/%s differs from cp's copy", p)
					}
					if !exfat && !bytes.Equal(mget(t, img, "/"+p), data) {
						t.Fatalf("mcopy reads /%s otherwise", p)
					}
				}
				if exfat {
					fsckExFAT(t, img, 0)
				} else {
					fsckClean(t, img, 0)
				}
			})
		}
	}
}

// hostTree lists a host folder: files with their bytes, folders ending in
// a slash.
func hostTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out[rel+"/"] = nil
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
