package tests

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fsinfoJSON is the part of fsinfo --json the tests read.
type fsinfoJSON struct {
	Device            string   `json:"device"`
	VolumeStart       int64    `json:"volume_start"`
	FATType           string   `json:"fat_type"`
	BytesPerSector    int      `json:"bytes_per_sector"`
	SectorsPerCluster int      `json:"sectors_per_cluster"`
	ClusterSize       int64    `json:"cluster_size"`
	ReservedSectors   int      `json:"reserved_sectors"`
	NumFATs           int      `json:"fats"`
	RootEntries       int      `json:"root_entries"`
	TotalSectors      int64    `json:"total_sectors"`
	Media             string   `json:"media"`
	FATSectors        int64    `json:"fat_sectors"`
	HiddenSectors     uint32   `json:"hidden_sectors"`
	VolumeID          string   `json:"volume_id"`
	Label             string   `json:"label"`
	Dirty             bool     `json:"dirty"`
	Clusters          uint32   `json:"clusters"`
	FreeClusters      uint32   `json:"free_clusters"`
	FreeCount         *uint32  `json:"free_count"`
	NextCluster       *uint32  `json:"next_cluster"`
	Warnings          []string `json:"warnings"`
}

// minfoField pulls "key: value" or "key=value" out of minfo's output.
func minfoField(t *testing.T, out, key string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `\s*[:=]\s*"?([^"\n]*)"?`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("minfo output has no %q:\n%s", key, out)
	}
	return strings.TrimSpace(m[1])
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	s = strings.TrimSuffix(strings.Fields(s)[0], "")
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// fsinfo agrees with minfo on images that mkfs.fat and mformat made.
func TestFsinfoAgreesWithMinfo(t *testing.T) {
	need(t, "mkfs.fat", "mformat", "minfo")
	cases := []struct {
		name string
		make func(img string)
	}{
		{"mkfs.fat-fat12", func(img string) { ok(t, "mkfs.fat", "-C", "-F", "12", "-n", "LBL12", img, "4096") }},
		{"mkfs.fat-fat16", func(img string) { ok(t, "mkfs.fat", "-C", "-F", "16", "-n", "LBL16", img, "65536") }},
		{"mkfs.fat-fat32", func(img string) { ok(t, "mkfs.fat", "-C", "-F", "32", "-s", "8", img, "1048576") }},
		{"mkfs.fat-fat32-4k", func(img string) { ok(t, "mkfs.fat", "-C", "-F", "32", "-S", "4096", img, "1048576") }},
		{"mformat-floppy", func(img string) { ok(t, "mformat", "-C", "-f", "1440", "-v", "FLOPPY", "-i", img, "::") }},
		{"mformat-fat32", func(img string) {
			ok(t, "truncate", "-s", "300M", img)
			ok(t, "mformat", "-F", "-T", "614400", "-h", "64", "-s", "32", "-i", img, "::")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "disk.img")
			tc.make(img)
			mi := ok(t, "minfo", "-i", img, "::")
			var fi fsinfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", img)
			check := func(what string, got, want int64) {
				if got != want {
					t.Errorf("%s: fsinfo says %d, minfo %d", what, got, want)
				}
			}
			check("sector size", int64(fi.BytesPerSector), atoi(t, minfoField(t, mi, "sector size")))
			check("sectors per cluster", int64(fi.SectorsPerCluster), atoi(t, minfoField(t, mi, "cluster size")))
			check("reserved sectors", int64(fi.ReservedSectors), atoi(t, minfoField(t, mi, "reserved (boot) sectors")))
			check("fats", int64(fi.NumFATs), atoi(t, minfoField(t, mi, "fats")))
			check("root entries", int64(fi.RootEntries), atoi(t, minfoField(t, mi, "max available root directory slots")))
			check("hidden sectors", int64(fi.HiddenSectors), atoi(t, minfoField(t, mi, "hidden sectors")))
			total := atoi(t, minfoField(t, mi, "small size"))
			if total == 0 {
				total = atoi(t, minfoField(t, mi, "big size"))
			}
			check("total sectors", fi.TotalSectors, total)
			if fi.Media != minfoField(t, mi, "media descriptor byte") {
				t.Errorf("media: fsinfo %s, minfo %s", fi.Media, minfoField(t, mi, "media descriptor byte"))
			}
			serial := minfoField(t, mi, "serial number")
			if strings.ReplaceAll(fi.VolumeID, "-", "") != strings.ToUpper(serial) {
				t.Errorf("volume id: fsinfo %s, minfo %s", fi.VolumeID, serial)
			}
			if want := strings.TrimSpace(minfoField(t, mi, "disk label")); want != "NO NAME" && fi.Label != want {
				t.Errorf("label: fsinfo %q, minfo %q", fi.Label, want)
			}
			fatLen := atoi(t, minfoField(t, mi, "sectors per fat"))
			if fatLen == 0 {
				fatLen = atoi(t, minfoField(t, mi, "Big fatlen"))
			}
			check("sectors per FAT", fi.FATSectors, fatLen)
			if fi.FATType == "FAT32" {
				check("FSINFO free count", int64(*fi.FreeCount), atoi(t, minfoField(t, mi, "free clusters")))
				check("FSINFO next cluster", int64(*fi.NextCluster), atoi(t, minfoField(t, mi, "last allocated cluster")))
				check("free clusters", int64(fi.FreeClusters), int64(*fi.FreeCount))
			}
		})
	}
}

// --next-cluster N makes the next file mcopy writes start right after N.
func TestFsinfoNextCluster(t *testing.T) {
	need(t, "mkfs.fat", "mcopy", "mshowfat")
	for _, maker := range []string{"mkfs.fat", "fmkfs"} {
		t.Run(maker, func(t *testing.T) {
			dir := t.TempDir()
			img := filepath.Join(dir, "disk.img")
			if maker == "mkfs.fat" {
				ok(t, "mkfs.fat", "-C", "-F", "32", img, "204800")
			} else {
				ok(t, "fmkfs", "--size", "100M", "--fat", "32", "--cluster-size", "512", img)
			}
			ok(t, "fsinfo", "--next-cluster", "5000", img)
			var fi fsinfoJSON
			jsonOut(t, &fi, "fsinfo", "--json", img)
			if fi.NextCluster == nil || *fi.NextCluster != 5000 || fi.Dirty {
				t.Fatalf("after --next-cluster 5000: next %v, dirty %v", fi.NextCluster, fi.Dirty)
			}
			fsckClean(t, img, 0)
			src := filepath.Join(dir, "f.bin")
			writeFile(t, src, 10_000, 1)
			ok(t, "mcopy", "-i", img, src, "::/F.BIN")
			out := ok(t, "mshowfat", "-i", img, "::/F.BIN")
			clusters := (10_000 + int(fi.ClusterSize) - 1) / int(fi.ClusterSize)
			want := fmt.Sprintf("<5001-%d>", 5000+clusters)
			if !strings.Contains(out, want) {
				t.Fatalf("mshowfat: %q, want %s", out, want)
			}
			if msg := fails(t, "fsinfo", "--next-cluster", "1", img); !strings.Contains(msg, "out of range") {
				t.Fatalf("--next-cluster 1: %q", msg)
			}
		})
	}
}

// --recount repairs a wrong free count; fsinfo warns about it first.
func TestFsinfoRecount(t *testing.T) {
	need(t, "mkfs.fat", "fsck.fat")
	img := filepath.Join(t.TempDir(), "disk.img")
	ok(t, "mkfs.fat", "-C", "-F", "32", img, "204800")
	ok(t, "fsinfo", "--free-count", "5", img)
	if r := run(t, "fsck.fat", "-n", img); r.code == 0 {
		t.Fatalf("fsck.fat accepts a free count of 5:\n%s", r.stdout)
	}
	out := ok(t, "fsinfo", img)
	if !strings.Contains(out, "warning: FSINFO free count 5 is wrong") {
		t.Fatalf("fsinfo does not warn about the free count:\n%s", out)
	}
	ok(t, "fsinfo", "--recount", img)
	fsckClean(t, img, 0)
	var fi fsinfoJSON
	jsonOut(t, &fi, "fsinfo", "--json", img)
	if *fi.FreeCount != fi.FreeClusters || len(fi.Warnings) != 0 {
		t.Fatalf("after --recount: free count %d, free clusters %d, warnings %q", *fi.FreeCount, fi.FreeClusters, fi.Warnings)
	}
}

// FAT12 and FAT16 have no FSINFO: setting it is a clear error.
func TestFsinfoNoFSInfoOnFAT16(t *testing.T) {
	img := filepath.Join(t.TempDir(), "disk.img")
	ok(t, "fmkfs", "--size", "32M", "--fat", "16", img)
	for _, flag := range []string{"--next-cluster=100", "--free-count=100", "--recount"} {
		msg := fails(t, "fsinfo", flag, img)
		if !strings.Contains(msg, "FAT12 and FAT16 volumes have no FSINFO") {
			t.Fatalf("fsinfo %s on FAT16: %q", flag, msg)
		}
	}
	out := ok(t, "fsinfo", img)
	if !strings.Contains(out, "FSINFO:") || !strings.Contains(out, "starts at byte") {
		t.Fatalf("fsinfo output lacks FSINFO note or regions:\n%s", out)
	}
}
