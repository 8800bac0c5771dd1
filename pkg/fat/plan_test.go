package fat

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlanParamErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    FormatParams
		text string
	}{
		{"sector size", FormatParams{Size: gib, SectorSize: 300}, "sector size 300 is not supported"},
		{"sector size 8192", FormatParams{Size: gib, SectorSize: 8192}, "sector size 8192 is not supported"},
		{"cluster 128K", FormatParams{Size: gib, ClusterSize: 128 << 10}, "256 sectors per cluster (128 KiB clusters) is not possible: FAT allows a power of two up to 128 sectors, 64 KiB with 512-byte sectors"},
		{"cluster 3K", FormatParams{Size: gib, ClusterSize: 3072}, "cluster size 3072 is not the 512-byte sector size times a power of two"},
		{"spc 3", FormatParams{Size: gib, SectorsPerCluster: 3}, "3 sectors per cluster"},
		{"disagree", FormatParams{Size: gib, ClusterSize: 4096, SectorsPerCluster: 4}, "cluster size 4096 and 4 sectors per cluster of 512 bytes disagree"},
		{"3 FATs", FormatParams{Size: gib, NumFATs: 3}, "3 FATs asked"},
		{"root 10", FormatParams{Size: 64 * mib, RootEntries: 10}, "10 root directory entries asked"},
		{"reserved 1 on FAT32", FormatParams{Size: gib, ReservedSectors: 1}, "FAT32 needs at least 2 reserved sectors"},
		{"reserved 70000", FormatParams{Size: gib, ReservedSectors: 70000}, "70000 reserved sectors asked"},
		{"media", FormatParams{Size: gib, Media: 0x12}, "media byte 0x12 is not valid"},
		{"type", FormatParams{Size: gib, Type: 24}, "FAT type 24 does not exist"},
		{"label long", FormatParams{Size: gib, Label: "ABCDEFGHIJKL"}, "has 12 characters: at most 11 fit"},
		{"label char", FormatParams{Size: gib, Label: "A*B"}, "are not allowed"},
		{"label space", FormatParams{Size: gib, Label: " AB"}, "starts with a space"},
		{"label cp850", FormatParams{Size: gib, Label: "日本"}, "code page 850 cannot hold"},
		{"oem", FormatParams{Size: gib, OEMName: "TOOLONGNAME"}, "longer than 8 bytes"},
		{"size 0", FormatParams{}, "too small"},
		{"F12 1GiB", FormatParams{Size: gib, Type: FAT12}, "FAT12 allows at most 4,084 clusters; 1 GiB with 64 KiB clusters would have 16,379 -- use FAT16 or FAT32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.AlignData = true
			_, _, err := Plan(tc.p)
			if !errors.Is(err, ErrInvalidParams) {
				t.Fatalf("err = %v, want ErrInvalidParams", err)
			}
			if !strings.Contains(err.Error(), tc.text) || !strings.HasPrefix(err.Error(), "fat: ") {
				t.Errorf("err = %q, want it to contain %q", err, tc.text)
			}
		})
	}
}

func TestPlanLabelAndDefaults(t *testing.T) {
	bs, l := mustPlan(t, FormatParams{Size: 2 * tib})
	if l.Type != FAT32 || l.ClusterSize != 32<<10 || bs.TotalSectors32 != 0xFFFFFFFF/63*63 {
		t.Errorf("2 TiB: %s, %d-byte clusters, %d sectors", l.Type, l.ClusterSize, bs.TotalSectors32)
	}
	if string(bs.OEMName[:]) != "mkfs.fat" || bs.Label() != "" || bs.DriveNumber != 0x80 || bs.Media != 0xF8 {
		t.Errorf("defaults: %q %q %#x %#x", bs.OEMName, bs.Label(), bs.DriveNumber, bs.Media)
	}
	// Labels are ASCII only (fsck.fat drops any byte from 0x80 up), though
	// code page 850 could encode this one.
	if _, _, err := Plan(FormatParams{Size: 64 * mib, Label: "straße äb"}); err == nil || !strings.Contains(err.Error(), "only ASCII") {
		t.Errorf("Plan with a non-ASCII label: %v", err)
	}
	bs, _ = mustPlan(t, FormatParams{Size: 64 * mib, Label: "stra-e ab", OEMName: "FTOOLS"})
	// The case is kept, as mkfs.fat keeps it (SetLabel upper-cases, as
	// mlabel).
	if got := string(bs.VolumeLabel[:]); got != "stra-e ab  " {
		t.Errorf("label bytes %q", got)
	}
	if bs.Label() != "stra-e ab" || string(bs.OEMName[:]) != "FTOOLS  " {
		t.Errorf("label %q oem %q", bs.Label(), bs.OEMName)
	}
	bs, _ = mustPlan(t, FormatParams{Size: 1440 * kib})
	if bs.DriveNumber != 0 || bs.Media != 0xF0 || bs.SectorsPerTrack != 18 {
		t.Errorf("floppy: drive %#x media %#x spt %d", bs.DriveNumber, bs.Media, bs.SectorsPerTrack)
	}
}

// TestPlannedImagesPassFsck writes the metadata Plan describes (boot
// sector, FSINFO and backups, the first FAT entries) into sparse images and
// holds them against fsck.fat.
func TestPlannedImagesPassFsck(t *testing.T) {
	if _, err := exec.LookPath("fsck.fat"); err != nil {
		t.Fatalf("fsck.fat is required: %v", err)
	}
	for _, p := range []FormatParams{
		{Size: 1440 * kib, Label: "floppy"},
		{Size: 8 * mib, Type: FAT12},
		{Size: 64 * mib, RootEntries: 100},
		{Size: 8 * mib, RootEntries: 100, AlignData: false},
		{Size: 600 * mib, Label: "big"},
		{Size: 300 * mib, Type: FAT32, SectorSize: 4096},
		{Size: 16 * mib, Type: FAT32, NumFATs: 1, AllowSmallFAT32: true},
	} {
		align := p.AlignData || p.RootEntries != 100 || p.Size != 8*mib
		p.AlignData = align
		bs, l, err := Plan(p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		img := filepath.Join(t.TempDir(), "img")
		f, err := os.Create(img)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(l.TotalSize); err != nil {
			t.Fatal(err)
		}
		write := func(b []byte, off int64) {
			if _, err := f.WriteAt(b, off); err != nil {
				t.Fatal(err)
			}
		}
		sec := make([]byte, l.SectorSize)
		bs.Encode(sec)
		write(sec, 0)
		if l.Type == FAT32 {
			info := make([]byte, l.SectorSize)
			(&FSInfo{FreeCount: l.Clusters - 1, NextFree: 2}).Encode(info)
			write(info, l.FSInfoOffset)
			write(sec, l.BackupBootOffset)
			write(info, l.BackupBootOffset+l.SectorSize)
		}
		head := make([]byte, l.FATSize)
		tb, err := NewTable(l.Type, head, l.Clusters)
		if err != nil {
			t.Fatal(err)
		}
		tb.Set(0, Cluster(0x0FFFFF00|uint32(bs.Media)))
		tb.Set(1, tb.EOC())
		if l.Type == FAT32 {
			tb.Set(l.RootCluster, tb.EOC())
		}
		for _, r := range tb.DirtyRanges(int(l.SectorSize)) {
			for i := 0; i < l.NumFATs; i++ {
				write(head[r[0]:r[1]], l.FATCopyOffset(i)+r[0])
			}
		}
		if bs.Label() != "" {
			// The label's root directory entry, which fsck.fat expects
			// to match the boot sector's (written raw: directory
			// entries are not this file's business).
			ent := make([]byte, 32)
			copy(ent, bs.VolumeLabel[:])
			ent[11] = 0x08             // volume label attribute
			ent[24], ent[25] = 0x21, 0 // 1980-01-01
			root := l.RootDirOffset
			if l.Type == FAT32 {
				root = l.ClusterOffset(l.RootCluster)
			}
			write(ent, root)
		}
		f.Close()
		out, err := exec.Command("fsck.fat", "-n", img).CombinedOutput()
		if err != nil {
			t.Errorf("%+v: fsck.fat -n: %v\n%s", p, err, out)
		}
	}
}
