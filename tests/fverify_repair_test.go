package tests

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fsckQuiet reports whether fsck.fat's output says nothing but its
// banner and summary line.
func fsckQuiet(out string) bool {
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "fsck.fat ") && !strings.Contains(l, " files, ") {
			return false
		}
	}
	return true
}

// keptFiles copies the whole tree out of an image with mcopy and returns
// every file's contents by path, every directory with a "/" at the end,
// and the volume label as mlabel shows it.
func keptFiles(t *testing.T, img string) (map[string][]byte, string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "mcopy", "-s", "-n", "-i", img, "::/", out); r.code != 0 {
		return nil, "", fmt.Errorf("mcopy -s ::/ exits %d: %s", r.code, firstLine(strings.TrimSpace(r.stderr)))
	}
	files := map[string][]byte{}
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == out {
			return nil
		}
		rel := "/" + filepath.ToSlash(strings.TrimPrefix(p, out+"/"))
		if d.IsDir() {
			files[rel+"/"] = nil
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[rel] = b
		return nil
	})
	label := strings.TrimSpace(run(t, "mlabel", "-s", "-i", img, "::").stdout)
	return files, label, nil
}

// compareKept checks that every file fsck.fat -a kept (theirs) is kept by
// fverify's repair (ours) under the same path, with the same bytes or
// more (fsck.fat truncates where fverify copies), except under the paths
// in exempt. It returns what fverify kept beyond fsck.fat.
func compareKept(t *testing.T, ours, theirs map[string][]byte, exempt []string) []string {
	t.Helper()
	var more []string
	for _, p := range slices.Sorted(mapsKeys(theirs)) {
		if slices.ContainsFunc(exempt, func(e string) bool { return p == e || p == e+"/" || strings.HasPrefix(p, e+"/") }) {
			continue
		}
		mine, ok := ours[p]
		switch {
		case !ok:
			t.Errorf("fsck.fat -a keeps %s (%d bytes), fverify's repair does not", p, len(theirs[p]))
		case bytes.Equal(mine, theirs[p]):
		case bytes.HasPrefix(mine, theirs[p]):
			more = append(more, fmt.Sprintf("%s: %d bytes, fsck.fat %d", p, len(mine), len(theirs[p])))
		default:
			t.Errorf("%s: fverify keeps %d bytes that differ from fsck.fat's %d", p, len(mine), len(theirs[p]))
		}
	}
	for _, p := range slices.Sorted(mapsKeys(ours)) {
		if _, ok := theirs[p]; !ok {
			more = append(more, p+" (only fverify)")
		}
	}
	return more
}

func mapsKeys(m map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestFverifyAgainstFsck takes every damage class image: fsck.fat -n must
// give the verdict the corpus records and fverify must report the class's
// kind; then one copy is repaired by fverify (-a, as fsck.fat -a, unless
// the case says otherwise) and another by fsck.fat -a. After fverify's
// repair both fverify and fsck.fat -n find nothing, and every file
// fsck.fat -a kept is kept by fverify too, with at least its bytes.
func TestFverifyAgainstFsck(t *testing.T) {
	need(t, "fsck.fat", "mcopy", "mlabel")
	var mu sync.Mutex
	var table []string
	t.Cleanup(func() {
		slices.Sort(table)
		t.Logf("damage classes, fsck.fat -n verdicts and the repair compared with fsck.fat -a:\n%s", strings.Join(table, "\n"))
	})
	for _, c := range classCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			orig := filepath.Join(dir, "orig.img")
			raw := gunzipTo(t, filepath.Join(damagedDir, c.name+".img.gz"), orig)
			row, found := classVerdicts(t, c, orig)
			if c.noRepair {
				mu.Lock()
				table = append(table, row+"; no repair (neither tool can)")
				mu.Unlock()
				return
			}
			ours := filepath.Join(dir, "ours.img")
			theirs := filepath.Join(dir, "theirs.img")
			for _, p := range []string{ours, theirs} {
				if err := os.WriteFile(p, raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			flags := c.repair
			if flags == nil {
				flags = []string{"-a"}
			}
			want := 1
			if c.kind == "" {
				want = 0
			}
			// The plan first: printed, nothing written.
			plan := verifyCode(t, ours, 4-4*(1-want), "--dry-run")
			if want == 1 && (len(plan.Left) != 0 || len(plan.Plan) == 0) {
				t.Fatalf("--dry-run: plan %q, left %v", plan.Plan, plan.Left)
			}
			fixed := verifyCode(t, ours, want, flags...)
			if want == 1 && (fixed.Summary.Remaining != 0 || len(fixed.Fixes) == 0) {
				t.Fatalf("fverify %v: fixes %q, %d remaining:\n%s", flags, fixed.Fixes, fixed.Summary.Remaining, kinds(fixed))
			}
			if again := verifyCode(t, ours, 0); len(again.Problems) != 0 {
				t.Fatalf("after the repair fverify finds:\n%s", kinds(again))
			}
			r := run(t, "fsck.fat", "-n", ours)
			if r.code != 0 || (c.class != "small-fat32" && (!fsckQuiet(r.stdout) || r.stderr != "")) {
				t.Fatalf("after fverify's repair fsck.fat -n says (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
			}
			if found.Summary.Lost > 0 {
				repairFreeing(t, raw, filepath.Join(dir, "freed.img"))
				row += "; --repair frees the lost chains, clean by both tools"
			}
			oursFiles, oursLabel, err := keptFiles(t, ours)
			if err != nil {
				t.Fatalf("fverify's repair: %v", err)
			}
			row += fmt.Sprintf("; repaired (%d fixes)", len(fixed.Fixes))
			if r := run(t, "fsck.fat", "-a", theirs); r.code > 1 || c.fsckN < 0 {
				row += fmt.Sprintf("; fsck.fat -a exits %d: %s", r.code, firstLine(strings.TrimSpace(r.stdout+r.stderr)))
				mu.Lock()
				table = append(table, row)
				mu.Unlock()
				return
			}
			theirsFiles, theirsLabel, err := keptFiles(t, theirs)
			if err != nil {
				row += "; fsck.fat -a leaves a volume mtools cannot copy out (" + err.Error() + ")"
				mu.Lock()
				table = append(table, row)
				mu.Unlock()
				return
			}
			more := compareKept(t, oursFiles, theirsFiles, c.keeps)
			if oursLabel != theirsLabel {
				row += fmt.Sprintf("; label: fverify %q, fsck.fat %q", oursLabel, theirsLabel)
			}
			row += ", keeps every file fsck.fat -a keeps"
			if len(more) > 0 {
				row += "; and more: " + strings.Join(more, ", ")
			}
			if len(c.keeps) > 0 {
				row += "; fsck.fat -a keeps " + strings.Join(c.keeps, ", ") + " differently"
			}
			mu.Lock()
			table = append(table, row)
			mu.Unlock()
		})
	}
}

// classVerdicts runs fsck.fat -n and fverify on a class image and checks
// their verdicts; it returns the row for the log.
func classVerdicts(t *testing.T, c classCase, img string) (string, verifyJSON) {
	t.Helper()
	r := run(t, "fsck.fat", "-n", img)
	verdict := fmt.Sprintf("fsck.fat -n exit %d", r.code)
	switch {
	case c.fsckN < 0 && r.code == 0:
		t.Errorf("fsck.fat -n: exit 0, want it to give up\n%s%s", r.stdout, r.stderr)
	case c.fsckN >= 0 && r.code != c.fsckN:
		t.Errorf("fsck.fat -n: exit %d, want %d\n%s%s", r.code, c.fsckN, r.stdout, r.stderr)
	case c.fsckSays != "" && !strings.Contains(r.stdout+r.stderr, c.fsckSays):
		t.Errorf("fsck.fat -n does not say %q:\n%s%s", c.fsckSays, r.stdout, r.stderr)
	}
	code := 4
	switch {
	case c.kind == "" && c.noRepair:
		code = 8
	case c.kind == "":
		code = 0
	}
	out := verifyCode(t, img, code)
	if c.kind != "" && !hasProblem(out, c.kind) {
		t.Errorf("fverify does not report %q:\n%s", c.kind, kinds(out))
	}
	return fmt.Sprintf("%s: %s; fverify exit %d %s", c.name, verdict, code, c.kind), out
}

// repairFreeing repairs a copy of raw with --repair, which frees lost
// chains instead of saving them: both tools must find the result clean,
// FSINFO's free count included (issue 17 item 3), and no FSCKnnnn.REC.
func repairFreeing(t *testing.T, raw []byte, img string) {
	t.Helper()
	if err := os.WriteFile(img, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	verifyCode(t, img, 1, "--repair")
	verifyCode(t, img, 0)
	if r := run(t, "fsck.fat", "-n", img); r.code != 0 || !fsckQuiet(r.stdout) {
		t.Fatalf("after fverify --repair, fsck.fat -n says (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	if files, _, err := keptFiles(t, img); err != nil || files["/FSCK0000.REC"] != nil {
		t.Fatalf("--repair saved a lost chain (or the volume cannot be copied out: %v)", err)
	}
}

// TestFverifyRandomDamage is the differential test the damage classes
// cannot be: bytes of the FAT and the directories of a filled volume are
// overwritten at random, then one copy is repaired by fverify -a and
// another by fsck.fat -a. fverify's repair must leave nothing for either
// tool to find, and every file of the undamaged volume that fsck.fat -a
// keeps intact must be intact after fverify's repair too. FTOOLS_STRESS=N
// runs N volumes instead of the usual few dozen.
func TestFverifyRandomDamage(t *testing.T) {
	need(t, "fsck.fat", "mcopy")
	n := 24
	if s := os.Getenv("FTOOLS_STRESS"); s != "" {
		fmt.Sscan(s, &n)
	}
	dir := t.TempDir()
	bases := map[string][]byte{}
	truth := map[string]map[string][]byte{}
	for _, name := range []string{"class-lost-m12", "class-lost-m16"} {
		img := filepath.Join(dir, name+".img")
		bases[name] = gunzipTo(t, filepath.Join(damagedDir, name+".img.gz"), img)
		files, _, err := keptFiles(t, img)
		if err != nil {
			t.Fatal(err)
		}
		truth[name] = files
	}
	kept, more := 0, 0
	for i := 0; i < n; i++ {
		name := []string{"class-lost-m12", "class-lost-m16"}[i%2]
		b := bytes.Clone(bases[name])
		damageAtRandom(b, uint32(i+1))
		ours, theirs := filepath.Join(dir, "ours.img"), filepath.Join(dir, "theirs.img")
		for _, p := range []string{ours, theirs} {
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		keep := filepath.Join(dir, fmt.Sprintf("damaged-%d.img", i))
		fail := func(format string, args ...any) {
			os.WriteFile(keep, b, 0o644)
			t.Errorf("volume %d (%s with random damage, kept as %s): %s", i, name, keep, fmt.Sprintf(format, args...))
		}
		r := run(t, "fverify", "-a", ours)
		if r.code != 1 && r.code != 4 {
			fail("fverify -a exits %d\n%s%s", r.code, tailOf(r.stdout), r.stderr)
			continue
		}
		if r.code == 1 {
			if r2 := run(t, "fverify", ours); r2.code != 0 {
				fail("fverify after the repair finds:\n%s", tailOf(r2.stdout))
			}
			if r3 := run(t, "fsck.fat", "-n", ours); r3.code != 0 || !fsckQuiet(r3.stdout) {
				fail("fsck.fat -n after fverify's repair says:\n%s", tailOf(r3.stdout))
			}
		}
		if r := run(t, "fsck.fat", "-a", theirs); r.code > 1 {
			continue
		}
		theirFiles, _, err := keptFiles(t, theirs)
		if err != nil {
			continue // fsck.fat -a left a volume mtools cannot copy out
		}
		ourFiles, _, err := keptFiles(t, ours)
		if err != nil {
			fail("%v", err)
			continue
		}
		for p, want := range truth[name] {
			switch {
			case !bytes.Equal(theirFiles[p], want):
				if bytes.Equal(ourFiles[p], want) {
					more++
				}
			case bytes.Equal(ourFiles[p], want):
				kept++
			default:
				fail("fsck.fat -a keeps %s intact, fverify -a does not", p)
			}
		}
	}
	t.Logf("%d volumes: %d files that fsck.fat -a keeps intact fverify keeps too, %d more that only fverify keeps", n, kept, more)
}

// damageAtRandom overwrites 1 to 24 bytes of the FAT's first entries (in
// FAT 1, FAT 2 or both) and of the directories at the start of the data
// area with values picked to make trouble.
func damageAtRandom(b []byte, seed uint32) {
	v := parseGvol(b)
	x := seed*2654435761 + 1
	rnd := func(n int) int {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		return int(x % uint32(n))
	}
	values := []byte{0, 0xFF, 0xE5, 0x0F, 0x10, 0x20}
	fatLen := min(v.fsz*v.bps, 600)
	dirs := v.rootOff()
	if v.typ == 32 {
		dirs = v.dataOff()
	}
	for k := 1 + rnd(24); k > 0; k-- {
		val := byte(rnd(256))
		if rnd(4) < 3 {
			val = values[rnd(len(values))]
		}
		if rnd(10) < 4 {
			off := v.fatOff(0) + rnd(fatLen)
			switch rnd(3) {
			case 0:
				b[off] = val
			case 1:
				b[off+v.fsz*v.bps] = val
			default:
				b[off], b[off+v.fsz*v.bps] = val, val
			}
			continue
		}
		b[dirs+rnd(v.dataOff()-dirs+60*v.csize())] = val
	}
}
