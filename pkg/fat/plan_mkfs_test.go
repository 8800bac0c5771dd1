package fat

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const (
	kib = int64(1) << 10
	mib = int64(1) << 20
	gib = int64(1) << 30
	tib = int64(1) << 40
)

// mkfsCase is one volume made both by mkfs.fat and by Plan.
type mkfsCase struct {
	name    string
	size    int64
	args    []string     // mkfs.fat options
	p       FormatParams // Plan's parameters besides Size, VolumeID and AlignData
	noAlign bool
	// want pins the outcome at the limits: "FAT16 4087" or "error".
	want string
	// adjust applies a deliberate difference to mkfs.fat's sector before
	// the comparison; it says why in its case's name.
	adjust func(b []byte)
}

func mkfsCases() []mkfsCase {
	sec := func(n int64) int64 { return n * 512 }
	return []mkfsCase{
		{name: "1440KiB floppy", size: 1440 * kib},
		{name: "720KiB floppy", size: 720 * kib},
		{name: "2880KiB floppy", size: 2880 * kib},
		{name: "3MiB tiny unaligned", size: 3 * mib},
		{name: "8MiB", size: 8 * mib},
		{name: "64MiB", size: 64 * mib},
		{name: "300MiB", size: 300 * mib},
		{name: "511MiB", size: 511 * mib},
		{name: "512MiB auto FAT32", size: 512 * mib},
		{name: "1GiB", size: 1 * gib},
		{name: "4GiB", size: 4 * gib},
		{name: "32GiB", size: 32 * gib},
		{name: "33GiB", size: 33 * gib},
		{name: "2TiB", size: 2 * tib},
		{name: "8MiB F12", size: 8 * mib, args: []string{"-F", "12"}, p: FormatParams{Type: FAT12}},
		{name: "8MiB F16", size: 8 * mib, args: []string{"-F", "16"}, p: FormatParams{Type: FAT16}},
		{name: "64MiB F32 small", size: 64 * mib, args: []string{"-F", "32"}, p: FormatParams{Type: FAT32}},
		{name: "300MiB F32", size: 300 * mib, args: []string{"-F", "32"}, p: FormatParams{Type: FAT32}},
		{name: "1GiB F16", size: 1 * gib, args: []string{"-F", "16"}, p: FormatParams{Type: FAT16}},
		{name: "1GiB F12 impossible", size: 1 * gib, args: []string{"-F", "12"}, p: FormatParams{Type: FAT12}},
		{name: "64MiB s1 impossible", size: 64 * mib, args: []string{"-s", "1"}, p: FormatParams{SectorsPerCluster: 1}},
		{name: "64MiB s8", size: 64 * mib, args: []string{"-s", "8"}, p: FormatParams{ClusterSize: 4096}},
		{name: "4GiB s64", size: 4 * gib, args: []string{"-s", "64"}, p: FormatParams{SectorsPerCluster: 64}},
		{name: "512MiB s16 too few for auto FAT32", size: 512 * mib, args: []string{"-s", "16"}, p: FormatParams{SectorsPerCluster: 16}},
		{name: "1GiB S4096", size: 1 * gib, args: []string{"-S", "4096"}, p: FormatParams{SectorSize: 4096}},
		{name: "64MiB S4096", size: 64 * mib, args: []string{"-S", "4096"}, p: FormatParams{SectorSize: 4096}},
		{name: "2TiB S4096", size: 2 * tib, args: []string{"-S", "4096"}, p: FormatParams{SectorSize: 4096}},
		{name: "300MiB S2048 F32", size: 300 * mib, args: []string{"-S", "2048", "-F", "32"}, p: FormatParams{SectorSize: 2048, Type: FAT32}},
		{name: "1GiB R8", size: 1 * gib, args: []string{"-R", "8"}, p: FormatParams{ReservedSectors: 8}},
		{name: "64MiB R3 F32 unaligned", size: 64 * mib, args: []string{"-R", "3", "-F", "32", "-a"}, p: FormatParams{ReservedSectors: 3, Type: FAT32}, noAlign: true},
		{name: "64MiB R5 F32 unaligned", size: 64 * mib, args: []string{"-R", "5", "-F", "32", "-a"}, p: FormatParams{ReservedSectors: 5, Type: FAT32}, noAlign: true},
		{name: "64MiB f1", size: 64 * mib, args: []string{"-f", "1"}, p: FormatParams{NumFATs: 1}},
		{name: "8MiB r224", size: 8 * mib, args: []string{"-r", "224"}, p: FormatParams{RootEntries: 224}},
		{name: "64MiB unaligned", size: 64 * mib, args: []string{"-a"}, noAlign: true},
		{name: "64MiB r100 aligned", size: 64 * mib, args: []string{"-r", "100"}, p: FormatParams{RootEntries: 100}},
		{
			name: "8MiB r100 unaligned: root entries rounded to whole sectors (fsck.fat refuses 100)",
			size: 8 * mib, args: []string{"-r", "100", "-a"}, p: FormatParams{RootEntries: 100}, noAlign: true,
			adjust: func(b []byte) { b[offRootEntries] = 112 },
		},
		{
			name: "64MiB label: case kept, as mkfs.fat keeps it",
			size: 64 * mib, args: []string{"-n", "Boot-Disk"}, p: FormatParams{Label: "Boot-Disk"},
		},
		{name: "64MiB media drive hidden geometry", size: 64 * mib,
			args: []string{"-M", "0xF0", "-h", "2048", "-g", "255/63", "-D", "0x81"},
			p:    FormatParams{Media: 0xF0, HiddenSectors: 2048, Heads: 255, SectorsPerTrack: 63, DriveNumber: 0x81}},
		{name: "64MiB media F0 drive default", size: 64 * mib, args: []string{"-M", "0xF0"}, p: FormatParams{Media: 0xF0}},
		// Cluster-count limits, with fixed 512-byte clusters and no
		// alignment so one sector more means one cluster more.
		{name: "F12 4084", size: sec(4141), args: []string{"-F", "12", "-s", "1", "-a"}, p: FormatParams{Type: FAT12, SectorsPerCluster: 1}, noAlign: true, want: "FAT12 4084"},
		{name: "F12 4085 refused", size: sec(4142), args: []string{"-F", "12", "-s", "1", "-a"}, p: FormatParams{Type: FAT12, SectorsPerCluster: 1}, noAlign: true, want: "error"},
		{name: "F16 4086 refused", size: sec(4151), args: []string{"-F", "16", "-s", "1", "-a"}, p: FormatParams{Type: FAT16, SectorsPerCluster: 1}, noAlign: true, want: "error"},
		{name: "F16 4087", size: sec(4152), args: []string{"-F", "16", "-s", "1", "-a"}, p: FormatParams{Type: FAT16, SectorsPerCluster: 1}, noAlign: true, want: "FAT16 4087"},
		{name: "F16 65524", size: sec(66069), args: []string{"-F", "16", "-s", "1", "-a"}, p: FormatParams{Type: FAT16, SectorsPerCluster: 1}, noAlign: true, want: "FAT16 65524"},
		{name: "F16 65525 refused", size: sec(66070), args: []string{"-F", "16", "-s", "1", "-a"}, p: FormatParams{Type: FAT16, SectorsPerCluster: 1}, noAlign: true, want: "error"},
		{name: "F32 explicit below 65525", size: sec(66070), args: []string{"-F", "32", "-s", "1", "-a"}, p: FormatParams{Type: FAT32, SectorsPerCluster: 1, AllowSmallFAT32: true}, noAlign: true, want: "FAT32 65022"},
		{name: "auto 4084 is FAT12", size: sec(4141), args: []string{"-s", "1", "-a"}, p: FormatParams{SectorsPerCluster: 1}, noAlign: true, want: "FAT12 4084"},
		{name: "auto between FAT12 and FAT16", size: sec(4142), args: []string{"-s", "1", "-a"}, p: FormatParams{SectorsPerCluster: 1}, noAlign: true, want: "error"},
		{name: "auto 4087 is FAT16", size: sec(4152), args: []string{"-s", "1", "-a"}, p: FormatParams{SectorsPerCluster: 1}, noAlign: true, want: "FAT16 4087"},
		{name: "too small", size: 40 * kib},
	}
}

// runMkfs formats a sparse image of size bytes with mkfs.fat and returns
// its first sector, or mkfs.fat's complaint.
func runMkfs(t *testing.T, size int64, args []string) ([]byte, error) {
	t.Helper()
	img := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, size); err != nil {
		t.Fatal(err)
	}
	all := append([]string{"--invariant", "-i", "12345678"}, args...)
	out, err := exec.Command("mkfs.fat", append(all, img)...).CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("mkfs.fat cannot run (dosfstools must be installed): %v", err)
		}
		return nil, fmt.Errorf("mkfs.fat %s: %s", strings.Join(args, " "), out)
	}
	return voltest.ReadFileAt(t, img, 0, 4096), nil
}

func TestPlanMatchesMkfs(t *testing.T) {
	if _, err := exec.LookPath("mkfs.fat"); err != nil {
		t.Fatalf("mkfs.fat is required for this test: %v", err)
	}
	for _, tc := range mkfsCases() {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			p.Size, p.VolumeID, p.AlignData = tc.size, 0x12345678, !tc.noAlign
			gotBS, gotL, planErr := Plan(p)
			raw, mkfsErr := runMkfs(t, tc.size, tc.args)
			if mkfsErr != nil || planErr != nil {
				if mkfsErr == nil || planErr == nil {
					t.Fatalf("mkfs.fat error: %v\nPlan error: %v", mkfsErr, planErr)
				}
				if !errors.Is(planErr, ErrInvalidParams) {
					t.Errorf("Plan error %v does not wrap ErrInvalidParams", planErr)
				}
				if tc.want != "" && tc.want != "error" {
					t.Errorf("want %s", tc.want)
				}
				t.Logf("both refuse:\n  mkfs.fat: %s\n  Plan:     %v", strings.TrimSpace(mkfsErr.Error()), planErr)
				return
			}
			if got := fmt.Sprintf("%s %d", gotL.Type, gotL.Clusters); tc.want != "" && got != tc.want {
				t.Errorf("Plan made %s, want %s", got, tc.want)
			}
			if tc.adjust != nil {
				tc.adjust(raw)
			}
			want, err := DecodeBootSector(raw)
			if err != nil {
				t.Fatalf("decoding mkfs.fat's boot sector: %v", err)
			}
			wantL, err := want.Layout()
			if err != nil {
				t.Fatalf("layout of mkfs.fat's boot sector: %v", err)
			}
			if d := cmp.Diff(want, gotBS, cmpopts.IgnoreFields(BootSector{}, "BootCode")); d != "" {
				t.Errorf("boot sector differs (-mkfs.fat +Plan):\n%s", d)
			}
			if d := cmp.Diff(wantL, gotL); d != "" {
				t.Errorf("layout differs (-mkfs.fat +Plan):\n%s", d)
			}
		})
	}
}
