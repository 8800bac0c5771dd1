package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFresizeExFATRefusals: on exFAT, what fresize refuses (a shrink below
// the data) and a dry run (shrinking, growing past the image file's end)
// leave the image byte for byte as it was, its size included; the refusal
// says what the volume needs.
func TestFresizeExFATRefusals(t *testing.T) {
	img, _ := fragmentedImage(t, "exfat", "32M", 6, "4096", 19<<20, true)
	same := imageKept(t, img)
	msg := fails(t, "fresize", img, "16M")
	if !strings.Contains(msg, "needs at least") || !strings.Contains(msg, "cannot shrink to") {
		t.Errorf("the refusal to shrink below the data does not say why: %s", msg)
	}
	same("a shrink below the data")
	var res resizeOut
	jsonOut(t, &res, "fresize", "--json", "--dry-run", img, "27M")
	if !res.DryRun || res.MoveClusters == 0 || res.NewSize != 27<<20 {
		t.Errorf("dry run of a shrink: %+v", res)
	}
	same("a dry run shrinking")
	jsonOut(t, &res, "fresize", "--json", "--dry-run", img, "100M")
	if !res.DryRun || res.NewSize != 100<<20 {
		t.Errorf("dry run of a grow past the image's end: %+v", res)
	}
	same("a dry run growing")
	fsckExFAT(t, img, 0)
}

// TestFresizeExFATMaxAtFATLimit: max on an exFAT image file much larger
// than the FAT before the cluster heap can count grows the volume to the
// largest size that FAT counts, and says so, rather than refusing.
func TestFresizeExFATMaxAtFATLimit(t *testing.T) {
	img, src := fragmentedImage(t, "exfat", "32M", 2, "4096", 19<<20, false)
	if err := os.Truncate(img, 8<<30); err != nil {
		t.Fatal(err)
	}
	before := rangeSum(t, img, 0, 32<<20)
	out := ok(t, "fresize", "--dry-run", img, "max")
	if !strings.Contains(out, "largest size the FAT can count") {
		t.Errorf("a dry run of max does not say the FAT stops it:\n%s", out)
	}
	if rangeSum(t, img, 0, 32<<20) != before || fileSize(t, img) != 8<<30 {
		t.Fatal("a dry run changed the image")
	}
	var res struct {
		resizeOut
		MaxLimit int64 `json:"max_limit"`
	}
	jsonOut(t, &res, "fresize", "--json", img, "max")
	if res.MaxLimit != 8<<30 || res.NewSize <= 32<<20 || res.NewSize >= 8<<30 {
		t.Fatalf("max: %+v; want a volume larger than 32 MiB and smaller than the 8 GiB file", res)
	}
	// Any larger size is refused, naming the size max chose.
	msg := fails(t, "fresize", "--dry-run", img, "8G")
	if !strings.Contains(msg, "cluster heap would move") {
		t.Errorf("growing past the FAT: %s", msg)
	}
	resizedClean(t, "exfat", img, 0)
	treeMatches(t, "exfat", img, 0, src)
	fuseMatches(t, img, src)
}

// TestFresizeJSONRefusedRealRun: --json on a real run that is refused (the
// data does not fit) says "dry_run": false, and with --dry-run true.
func TestFresizeJSONRefusedRealRun(t *testing.T) {
	img := newExFAT(t, "64M")
	host := filepath.Join(t.TempDir(), "r")
	writeFile(t, host, 10<<20, 3)
	ok(t, "fcp", "-i", img, host, "::/a")
	for _, dry := range []bool{false, true} {
		args := []string{"--json", img, "4M"}
		if dry {
			args = append([]string{"-n"}, args...)
		}
		r := run(t, "fresize", args...)
		var res struct {
			DryRun *bool `json:"dry_run"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 1 {
			t.Fatalf("fresize %v: exit %d, %v\n%s", args, r.code, err, r.stdout)
		}
		if res.DryRun == nil || *res.DryRun != dry {
			t.Errorf("fresize %v: dry_run %v, want %v\n%s", args, res.DryRun, dry, r.stdout)
		}
	}
}

// TestFresizeExFATMinimumWorks: the smallest size an exFAT refusal names
// is one fresize then accepts, also when the allocation bitmap lies past
// it (after a growth put it at the end) and is copied whole, counting
// twice while it moves; fsck.exfat finds the result clean.
func TestFresizeExFATMinimumWorks(t *testing.T) {
	need(t, "truncate")
	img := newExFAT(t, "50M")
	host := filepath.Join(t.TempDir(), "r")
	writeFile(t, host, 8<<20, 5)
	ok(t, "fcp", "-i", img, host, "::/r")
	ok(t, "truncate", "-s", "2G", img)
	ok(t, "fresize", img, "max")
	msg := fails(t, "fresize", "-n", img, "1M")
	i := strings.Index(msg, "needs at least ")
	if i < 0 {
		t.Fatalf("fresize -n %s 1M: %q, want the size it needs", img, msg)
	}
	min := strings.Fields(msg[i+len("needs at least "):])[0]
	ok(t, "fresize", "-n", img, min)
	ok(t, "fresize", img, min)
	fsckExFAT(t, img, 0)
}
