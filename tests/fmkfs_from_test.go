package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fromJSON is what fmkfs --from --json reports.
type fromJSON struct {
	Table       string `json:"table"`
	VolumeStart int64  `json:"volume_start"`
	VolumeSize  int64  `json:"volume_size"`
	FATType     string `json:"fat_type"`
	ClusterSize int64  `json:"cluster_size"`
	From        *struct {
		Files   int   `json:"files"`
		Dirs    int   `json:"dirs"`
		Bytes   int64 `json:"bytes"`
		Skipped []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"skipped"`
		Sized *struct {
			Size   int64  `json:"size"`
			FSSize int64  `json:"fs_size"`
			Type   string `json:"type"`
		} `json:"sized"`
	} `json:"from"`
}

// fmkfs --from makes every kind of volume, sized to fit, and fills it:
// fsck passes, mtools (exFAT: fcp and exfat-fuse) read the tree back byte
// for byte with its times, and one MiB less (the sizing's step) does not
// hold the tree: the size is within 1 MiB of the smallest.
func TestFmkfsFromRoundTrip(t *testing.T) {
	need(t, "fsck.fat", "mcopy", "fsck.exfat")
	for _, c := range []struct {
		name  string
		args  []string
		boot  bool // a second tree in /boot
		exfat bool
		want  string
	}{
		{name: "default", want: "FAT12"},
		{name: "fat12", args: []string{"--fat", "12"}, want: "FAT12"},
		{name: "fat16-label", args: []string{"--fat", "16", "--label", "BOOT"}, want: "FAT16"},
		{name: "fat32", args: []string{"--fat", "32"}, want: "FAT32"},
		{name: "gpt-esp", args: []string{"--table", "gpt", "--esp"}, want: "FAT32"},
		{name: "mbr-boot-folder", args: []string{"--table", "mbr", "--free", "10%"}, boot: true, want: "FAT12"},
		{name: "exfat", args: []string{"--type", "exfat"}, exfat: true, want: "exFAT"},
		{name: "exfat-gpt-boot-folder", args: []string{"--type", "exfat", "--table", "gpt", "--free", "1M"}, boot: true, exfat: true, want: "exFAT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "tree")
			makeTree(t, src, 2048)
			img := filepath.Join(dir, "disk.img")
			args := append(append([]string{"--json"}, c.args...), "--from", src)
			if c.boot {
				args = append(args, "--from", src+"/level one:/boot/sub")
			}
			var res fromJSON
			jsonOut(t, &res, "fmkfs", append(args, img)...)
			if res.From == nil || res.From.Sized == nil || res.FATType != c.want || len(res.From.Skipped) != 0 {
				t.Fatalf("fmkfs --json: %+v", res)
			}
			fi, err := os.Stat(img)
			if err != nil || fi.Size() != res.From.Sized.Size || res.From.Sized.FSSize != res.VolumeSize {
				t.Fatalf("image of %v bytes (%v), JSON says %+v", fi.Size(), err, res.From.Sized)
			}
			off := res.VolumeStart
			out := filepath.Join(dir, "out")
			mustMkdir(t, out)
			if c.exfat {
				fsckExFAT(t, img, off)
				ok(t, "fcp", "-r", mimg(img, off)+"::/.", out)
				if off == 0 {
					mnt, _ := fuseMount(t, attach(t, img, 512))
					compareTrees(t, src, filepath.Join(mnt), false)
				}
			} else {
				fsckClean(t, img, off)
				ok(t, "mcopy", "-s", "-n", "-m", "-i", mimg(img, off), "::/*", out)
			}
			if c.boot {
				compareTrees(t, filepath.Join(src, "level one"), filepath.Join(out, "boot", "sub"), false)
				if err := os.RemoveAll(filepath.Join(out, "boot")); err != nil {
					t.Fatal(err)
				}
			}
			compareTrees(t, src, out, false)

			// One step (1 MiB) less does not hold the tree, and is refused
			// before anything is written.
			small := filepath.Join(dir, "small.img")
			less := fmt.Sprintf("%dK", (res.From.Sized.FSSize-1<<20)>>10)
			sizeArgs := []string{"--size", less}
			if res.Table != "none" {
				sizeArgs = []string{"--part-size", less}
			}
			args = append(append(append([]string{}, c.args...), sizeArgs...), "--from", src)
			if c.boot {
				args = append(args, "--from", src+"/level one:/boot/sub")
			}
			fails(t, "fmkfs", append(args, small)...)
			if _, err := os.Stat(small); !os.IsNotExist(err) {
				t.Fatalf("a refused fmkfs left %s: %v", small, err)
			}
		})
	}
}

// Two builds of one tree from two checkouts (created in another order,
// under another umask, seconds apart) in two time zones, with
// SOURCE_DATE_EPOCH, give the same bytes: names sorted, times clamped to
// it and older ones kept, all stored in UTC, ids derived from it.
func TestFmkfsFromReproducible(t *testing.T) {
	old := time.Date(2020, 5, 6, 7, 8, 10, 0, time.UTC) // before SOURCE_DATE_EPOCH: kept
	for _, args := range [][]string{nil, {"--fat", "16", "--label", "BOOT"}, {"--table", "gpt", "--esp"}, {"--type", "exfat", "--table", "mbr"}} {
		t.Run(strings.Join(append([]string{"plain"}, args...), "-"), func(t *testing.T) {
			dir := t.TempDir()
			makeBuildTree(t, filepath.Join(dir, "t1"), false)
			time.Sleep(1100 * time.Millisecond)
			mask := syscall.Umask(0o077)
			makeBuildTree(t, filepath.Join(dir, "t2"), true)
			syscall.Umask(mask)
			for _, tr := range []string{"t1", "t2"} {
				for _, p := range []string{"README.md", "boot/config.txt", "a/b"} {
					if err := os.Chtimes(filepath.Join(dir, tr, p), old, old); err != nil {
						t.Fatal(err)
					}
				}
			}
			var sums [][32]byte
			for i, tz := range []string{"America/New_York", "Asia/Tokyo"} {
				img := filepath.Join(dir, fmt.Sprintf("%d.img", i))
				cmd := exec.Command("fmkfs", append(append([]string{}, args...), "--from", filepath.Join(dir, fmt.Sprintf("t%d", i+1)), "--from", filepath.Join(dir, "t1", "boot")+":/EFI/boot", img)...)
				cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000", "TZ="+tz)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cmd, err, out)
				}
				sums = append(sums, imageSum(t, img))
			}
			if sums[0] != sums[1] {
				t.Fatal("two builds of the same tree differ")
			}
			// The old time is kept, in UTC.
			if args == nil {
				out := ok(t, "mdir", "-i", filepath.Join(dir, "0.img"), "::/")
				if !strings.Contains(out, "2020-05-06   7:08") {
					t.Fatalf("README.md's time is not 2020-05-06 07:08 UTC:\n%s", out)
				}
			}
		})
	}
}

// A tree that does not fit the size given is refused before anything is
// written, with the size it needs; an existing image stays byte for byte
// as it was.
func TestFmkfsFromRefusal(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "tree")
	mustMkdir(t, src)
	writeFile(t, filepath.Join(src, "big.bin"), 3<<20, 1)
	img := filepath.Join(dir, "new.img")
	msg := fails(t, "fmkfs", "--size", "2M", "--from", src, img)
	if !strings.Contains(msg, "does not fit") || !strings.Contains(msg, "it needs a file system of") {
		t.Fatalf("refusal: %s", msg)
	}
	if _, err := os.Stat(img); !os.IsNotExist(err) {
		t.Fatalf("a refused fmkfs left %s: %v", img, err)
	}
	existing := filepath.Join(dir, "old.img")
	writeFile(t, existing, 2<<20, 9)
	before := imageSum(t, existing)
	for _, args := range [][]string{{}, {"--type", "exfat"}, {"--size", "2M"}, {"--table", "gpt", "--force"}} {
		fails(t, "fmkfs", append(args, "--from", src, existing)...)
		if imageSum(t, existing) != before {
			t.Fatalf("fmkfs %v --from: a refusal changed the image", args)
		}
	}
	// auto without --from means nothing.
	if msg := fails(t, "fmkfs", "--size", "auto", filepath.Join(dir, "x.img")); !strings.Contains(msg, "--from") {
		t.Fatalf("--size auto without --from: %s", msg)
	}
}

// fcp's rules hold for the trees --from copies: what FAT cannot hold
// (a FIFO, a link to a folder without --dereference) is named and skipped
// with exit status 1, the rest is copied; --set-hidden, --set-system and
// --set-read-only mark what their patterns match; --mtime stamps all.
func TestFmkfsFromRules(t *testing.T) {
	need(t, "mattrib", "mdir", "fsck.fat")
	dir := t.TempDir()
	src := filepath.Join(dir, "tree")
	mustMkdir(t, filepath.Join(src, "EFI", "BOOT"), filepath.Join(dir, "elsewhere"))
	writeFile(t, filepath.Join(src, "EFI", "BOOT", "BOOTX64.EFI"), 5000, 1)
	writeFile(t, filepath.Join(src, "IO.SYS"), 100, 2)
	writeFile(t, filepath.Join(src, "plain.txt"), 10, 3)
	writeFile(t, filepath.Join(dir, "elsewhere", "linked.txt"), 10, 4)
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "a.img")
	r := run(t, "fmkfs", "--from", src, "--set-hidden", "*.SYS", "--set-system", "*.sys", "--set-read-only", "/EFI/BOOT/*",
		"--mtime", "2022-02-03T04:05:06", img)
	if r.code != 1 || !strings.Contains(r.stderr, "fifo") || !strings.Contains(r.stderr, "link") {
		t.Fatalf("fmkfs with a FIFO and a link to a folder: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The advice names fmkfs's options, not fcp's.
	if !strings.Contains(r.stderr, "--dereference") || strings.Contains(r.stderr, "-L") || strings.Contains(r.stderr, "command line") {
		t.Fatalf("fmkfs's advice names fcp's options:\n%s", r.stderr)
	}
	fsckClean(t, img, 0)
	for p, want := range map[string]string{"/IO.SYS": "AHS", "/EFI/BOOT/BOOTX64.EFI": "AR", "/plain.txt": "A", "/EFI": ""} {
		out := ok(t, "mattrib", "-i", img, "::"+p)
		letters := strings.ReplaceAll(strings.Split(out, "::/")[0], " ", "")
		got := ""
		for _, l := range "AHRS" {
			if strings.ContainsRune(letters, l) {
				got += string(l)
			}
		}
		if got != want {
			t.Errorf("%s: attributes %q, want %q (mattrib: %s)", p, got, want, out)
		}
	}
	listing := ok(t, "mdir", "-i", img, "::/", "::/EFI/BOOT")
	if n := strings.Count(listing, "2022-02-03   4:05"); n < 5 {
		t.Errorf("--mtime: %d entries stamped 2022-02-03 04:05, want every one:\n%s", n, listing)
	}
	if strings.Contains(r.stderr, "matches nothing") {
		t.Errorf("patterns that match warned:\n%s", r.stderr)
	}
	// A pattern that matches nothing is said (a likely typo), exit 0.
	r = run(t, "fmkfs", "--from", filepath.Join(src, "EFI"), "--set-hidden", "*.SYS", "--set-read-only", "/EFI/BOOT/*", filepath.Join(dir, "c.img"))
	if r.code != 0 || !strings.Contains(r.stderr, `--set-hidden "*.SYS" matches nothing`) || !strings.Contains(r.stderr, `--set-read-only "EFI/BOOT/*" matches nothing`) {
		t.Errorf("patterns that match nothing: exit %d\n%s", r.code, r.stderr)
	}
	// With --dereference the link is followed.
	img2 := filepath.Join(dir, "b.img")
	r = run(t, "fmkfs", "--dereference", "--from", src, img2)
	if r.code != 1 || strings.Contains(r.stderr, "link") {
		t.Fatalf("fmkfs --dereference: exit %d\n%s", r.code, r.stderr)
	}
	if b := mget(t, img2, "/link/linked.txt"); !bytes.Equal(b, readImage(t, filepath.Join(dir, "elsewhere", "linked.txt"))) {
		t.Fatal("--dereference: the linked folder's file differs")
	}
}

// On a block device, an existing partition and an offset the size is
// what is there: the tree fills it, and auto is refused.
func TestFmkfsFromFixedPlaces(t *testing.T) {
	need(t, "fsck.fat", "sfdisk")
	dir := t.TempDir()
	src := filepath.Join(dir, "tree")
	makeTree(t, src, 2048)
	img := filepath.Join(dir, "loop.img")
	ok(t, "truncate", "-s", "20M", img)
	dev := attach(t, img, 512)
	ok(t, "fmkfs", "--from", src, dev)
	fsckClean(t, dev, 0)
	if msg := fails(t, "fmkfs", "--from", src, "--size", "auto", dev); !strings.Contains(msg, "block device") {
		t.Fatalf("--size auto on a block device: %s", msg)
	}
	pt := filepath.Join(dir, "pt.img")
	ok(t, "truncate", "-s", "30M", pt)
	sfdisk(t, pt, "label: dos\nstart=2048, size=20480, type=c\nstart=22528, type=83\n")
	ok(t, "fmkfs", "--from", src, "--partition", "1", pt)
	fsckClean(t, pt, 1<<20)
	if fi, err := os.Stat(pt); err != nil || fi.Size() != 30<<20 {
		t.Fatalf("the disk image changed size: %v", err)
	}
	off := filepath.Join(dir, "off.img")
	ok(t, "fmkfs", "--from", src, "--offset", "2048", off)
	fsckClean(t, off, 1<<20)
	out := filepath.Join(dir, "out")
	mustMkdir(t, out)
	ok(t, "mcopy", "-s", "-n", "-m", "-i", mimg(off, 1<<20), "::/*", out)
	compareTrees(t, src, out, false)
}

// Two trees with a file of the same name (or the same but for case) are
// one copy for fcp's clash rule: the second is skipped and named, exit
// status 1, the first kept; --clash o replaces it, and folders merge.
func TestFmkfsFromSameName(t *testing.T) {
	dir := t.TempDir()
	for p, s := range map[string]string{"a1/same.txt": "one", "a2/same.txt": "two", "b1/d/X.txt": "big", "b2/d/x.TXT": "small", "b2/d/other": "o"} {
		mustMkdir(t, filepath.Dir(filepath.Join(dir, p)))
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		a, b, skipped, file, want string
	}{
		{"a1", "a2", "a2/same.txt", "/same.txt", "one"},
		{"b1", "b2", "b2/d/x.TXT", "/d/X.txt", "big"},
	} {
		for _, typ := range []string{"fat", "exfat"} {
			img := filepath.Join(dir, c.a+typ+".img")
			r := run(t, "fmkfs", "--type", typ, "--from", filepath.Join(dir, c.a), "--from", filepath.Join(dir, c.b), img)
			if r.code != 1 || !strings.Contains(r.stderr, c.skipped) || !strings.Contains(r.stderr, "--clash a") {
				t.Fatalf("fmkfs --from %s --from %s (%s): exit %d\n%s%s", c.a, c.b, typ, r.code, r.stdout, r.stderr)
			}
			if typ == "fat" {
				if got := string(mget(t, img, c.file)); got != c.want {
					t.Fatalf("%s holds %q, want the first tree's %q", c.file, got, c.want)
				}
			}
		}
	}
	img := filepath.Join(dir, "o.img")
	ok(t, "fmkfs", "--clash", "o", "--from", filepath.Join(dir, "a1"), "--from", filepath.Join(dir, "a2"), img)
	if got := string(mget(t, img, "/same.txt")); got != "two" {
		t.Fatalf("--clash o: /same.txt holds %q", got)
	}
	img = filepath.Join(dir, "m.img")
	ok(t, "fmkfs", "--clash", "o", "--from", filepath.Join(dir, "b1"), "--from", filepath.Join(dir, "b2"), img)
	if got := string(mget(t, img, "/d/other")); got != "o" {
		t.Fatalf("the folders do not merge: /d/other holds %q", got)
	}
}

// What can be found wrong in the --from arguments is found before the
// first write: a folder name the volume cannot hold, an unreadable tree,
// a folder where another tree puts a file. The refusal names it and an
// existing image with data stays byte for byte as it was.
func TestFmkfsFromCheckedFirst(t *testing.T) {
	need(t, "sfdisk")
	dir := t.TempDir()
	for p, s := range map[string]string{"a1/same.txt": "one", "b1/x.txt": "x", "boot/k": "k"} {
		mustMkdir(t, filepath.Dir(filepath.Join(dir, p)))
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a1, b1, boot := filepath.Join(dir, "a1"), filepath.Join(dir, "b1"), filepath.Join(dir, "boot")
	img := filepath.Join(dir, "old.img")
	ok(t, "fmkfs", "--size", "4M", "--from", a1, img)
	pt := filepath.Join(dir, "pt.img")
	ok(t, "truncate", "-s", "8M", pt)
	sfdisk(t, pt, "label: dos\nstart=2048, type=c\n")
	ok(t, "fmkfs", "--partition", "1", "--from", a1, pt)
	for _, c := range []struct {
		img  string
		args []string
		want string
	}{
		{img, []string{"--from", a1 + ":/bad?x"}, "bad?x"},
		{img, []string{"--type", "exfat", "--from", a1 + ":/bad?x"}, "bad?x"},
		{img, []string{"--from", boot + ":/CON"}, "CON"},
		{pt, []string{"--partition", "1", "--from", boot + ":/CON"}, "CON"},
		{img, []string{"--from", a1, "--from", b1 + ":/same.txt"}, "same.txt"},
		{img, []string{"--from", b1 + ":/SAME.TXT/sub", "--from", a1}, "same.txt"},
		{pt, []string{"--partition", "1", "--from", a1, "--from", b1 + ":/same.txt"}, "same.txt"},
	} {
		before := imageSum(t, c.img)
		msg := fails(t, "fmkfs", append(c.args, c.img)...)
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "nothing was written") {
			t.Errorf("fmkfs %v: %s", c.args, msg)
		}
		if imageSum(t, c.img) != before {
			t.Errorf("fmkfs %v: a refusal changed the image", c.args)
		}
	}
	// An unreadable tree, as a user who cannot read it.
	noperm := filepath.Join(dir, "noperm")
	mustMkdir(t, noperm)
	bin := filepath.Join(dir, "fmkfs")
	exe, err := exec.LookPath("fmkfs")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Dir(dir), dir, img} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(noperm, 0o700); err != nil {
		t.Fatal(err)
	}
	before := imageSum(t, img)
	cmd := exec.Command(bin, "--from", noperm, img)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "noperm") || !strings.Contains(string(out), "nothing was written") {
		t.Errorf("fmkfs --from an unreadable folder: %v\n%s", err, out)
	}
	if imageSum(t, img) != before {
		t.Error("fmkfs --from an unreadable folder: a refusal changed the image")
	}
}

// On FAT a file over 4 GiB - 1 bytes is named before anything is
// written, with --type exfat as the way, and left out of the sizing: the
// copy refuses it as fcp does (exit status 1), the rest is in an image
// sized for the rest.
func TestFmkfsFromTooLargeForFAT(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "huge")
	mustMkdir(t, src)
	if err := os.WriteFile(filepath.Join(src, "s.txt"), []byte("small"), 0o644); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(src, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(5 << 30); err != nil {
		t.Fatal(err)
	}
	big.Close()
	img := filepath.Join(dir, "huge.img")
	r := run(t, "fmkfs", "--from", src, img)
	first := strings.Index(r.stderr, "big.bin")
	if r.code != 1 || first < 0 || !strings.Contains(r.stderr[first:strings.Index(r.stderr[first:], "\n")+first], "--type exfat") {
		t.Fatalf("fmkfs --from a tree with a 5 GiB file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if fi, err := os.Stat(img); err != nil || fi.Size() > 1<<20 {
		t.Fatalf("the image is sized for the file FAT cannot hold: %v", err)
	}
	if got := string(mget(t, img, "/s.txt")); got != "small" {
		t.Fatalf("/s.txt holds %q", got)
	}
	// A size too small for the rest suggests the size of the rest.
	writeFile(t, filepath.Join(src, "mid.bin"), 3<<20, 1)
	msg := fails(t, "fmkfs", "--size", "2M", "--from", src, filepath.Join(dir, "small.img"))
	if !strings.Contains(msg, "--size 4M") && !strings.Contains(msg, "--size 5M") {
		t.Fatalf("--size 2M: %s", msg)
	}
}

// Sized to fit, FAT12/16's fixed root gets the entries the tree's root
// needs when -r is not given (600 files: a 2 MiB FAT12, not a 512 MiB
// FAT32); a size given that lacks only root entries is refused with -r
// in the advice, whose bytes and --size agree, and the advice works.
func TestFmkfsFromRootEntries(t *testing.T) {
	need(t, "fsck.fat")
	dir := t.TempDir()
	src := filepath.Join(dir, "many")
	mustMkdir(t, src)
	for i := range 600 {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%d.txt", i)), []byte("abc"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img := filepath.Join(dir, "many.img")
	var res fromJSON
	jsonOut(t, &res, "fmkfs", "--json", "--from", src, img)
	if res.FATType != "FAT12" || res.From == nil || res.From.Files != 600 || res.From.Sized.Size > 2<<20 {
		t.Fatalf("600 files: %+v %+v", res, res.From)
	}
	fsckClean(t, img, 0)
	msg := fails(t, "fmkfs", "--size", "4M", "--from", src, filepath.Join(dir, "four.img"))
	var bytes, mib, entries int64
	i := strings.Index(msg, "it needs a file system of ")
	if i < 0 {
		t.Fatalf("--size 4M: %s", msg)
	}
	if _, err := fmt.Sscanf(msg[i:], "it needs a file system of %d bytes (2.0 MiB; --size %dM -r %d", &bytes, &mib, &entries); err != nil || bytes != mib<<20 || entries < 600 {
		t.Fatalf("--size 4M: the advice (%v): %s", err, msg)
	}
	ok(t, "fmkfs", "--size", fmt.Sprintf("%dM", mib), "-r", fmt.Sprint(entries), "--from", src, filepath.Join(dir, "advised.img"))
}

// The image written inside the tree copied into it is skipped with a
// note, not copied into itself (which fails for want of room): fmkfs
// --from, new or existing image, and fcp -r into it.
func TestFmkfsFromTargetInTree(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "self")
	mustMkdir(t, src)
	if err := os.WriteFile(filepath.Join(src, "a.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(src, "self.img")
	for _, c := range [][]string{
		{"fmkfs", "--from", src, img},
		{"fmkfs", "--from", src, img}, // now an existing image of 1 MiB
		{"fcp", "-i", img, "-r", src + "/.", "::/"},
	} {
		r := run(t, c[0], c[1:]...)
		if r.code != 0 || !strings.Contains(r.stderr, "target image itself") {
			t.Fatalf("%v: exit %d\n%s%s", c, r.code, r.stdout, r.stderr)
		}
		if got := string(mget(t, img, "/a.txt")); got != "hi" {
			t.Fatalf("%v: /a.txt holds %q", c, got)
		}
	}
	if fi, err := os.Stat(img); err != nil || fi.Size() != 1<<20 {
		t.Fatalf("the image is not 1 MiB: %v", err)
	}
}

// What fmkfs --from says: "1 file", the same count of folders in the
// sizing and the copy (the folders made for DIR:/FOLDER included), and,
// for an existing partition too small, a larger partition, not --size.
func TestFmkfsFromMessages(t *testing.T) {
	need(t, "sfdisk")
	dir := t.TempDir()
	src := filepath.Join(dir, "esp")
	mustMkdir(t, filepath.Join(src, "EFI", "BOOT"), filepath.Join(src, "a", "b"))
	if err := os.WriteFile(filepath.Join(src, "EFI", "BOOT", "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := ok(t, "fmkfs", "--from", src+":/esp/top", filepath.Join(dir, "e.img"))
	// esp, top, EFI, BOOT, a, b.
	if !strings.Contains(out, "in 1 file and 6 folders") || !strings.Contains(out, "copied 1 file and 6 folders") {
		t.Fatalf("the counts:\n%s", out)
	}
	writeFile(t, filepath.Join(src, "big"), 3<<20, 1)
	pt := filepath.Join(dir, "pt.img")
	ok(t, "truncate", "-s", "30M", pt)
	sfdisk(t, pt, "label: dos\nstart=2048, size=2048, type=c\n")
	msg := fails(t, "fmkfs", "--from", src, "--partition", "1", pt)
	if strings.Contains(msg, "--size") || !strings.Contains(msg, "make partition 1 larger") {
		t.Fatalf("--partition 1 too small: %s", msg)
	}
}

// fmkfs --sd --from on a card over 32 GiB (SDXC) makes exFAT, and the
// tree is measured as exFAT stores it, not as FAT would: a folder whose
// long names take more slots than a FAT directory holds (65,536) fits an
// exFAT one, so the card is made and filled, with no word of FAT's limits.
func TestFmkfsFromSDXCMeasuredAsExFAT(t *testing.T) {
	need(t, "fsck.exfat")
	dir := t.TempDir()
	src := filepath.Join(dir, "tree")
	big := filepath.Join(src, "big")
	mustMkdir(t, big)
	// 100-character names: 9 slots each on FAT (8 long-name slots and the
	// short entry), 7,300 of them 65,700 slots.
	const n = 7300
	for i := range n {
		name := fmt.Sprintf("%05d %s", i, strings.Repeat("a long name ", 8)[:94])
		if err := os.WriteFile(filepath.Join(big, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img := filepath.Join(dir, "card.img")
	var res fromJSON
	jsonOut(t, &res, "fmkfs", "--json", "--sd", "--size", "40G", "--from", src, img)
	if res.FATType != "exFAT" || res.From == nil || res.From.Files != n || len(res.From.Skipped) != 0 {
		t.Fatalf("fmkfs --sd --from on 40 GiB: %+v", res)
	}
	fsckExFAT(t, img, res.VolumeStart)
	ents, err := os.ReadDir(big)
	if err != nil || len(ents) != n {
		t.Fatalf("%d host files (%v)", len(ents), err)
	}
	list := ok(t, "fls", mimg(img, res.VolumeStart)+"::/big")
	got := 0
	for _, l := range strings.Split(list, "\n") {
		if strings.Contains(l, "a long name") {
			got++
		}
	}
	if got != n {
		t.Fatalf("fls lists %d files in /big, want %d", got, n)
	}
}
