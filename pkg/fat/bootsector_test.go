package fat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
	"github.com/google/go-cmp/cmp"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	return voltest.ReadFile(t, filepath.Join("testdata", name))
}

func mustPlan(t testing.TB, p FormatParams) (*BootSector, *Layout) {
	t.Helper()
	p.AlignData = true
	bs, l, err := Plan(p)
	if err != nil {
		t.Fatalf("Plan(%+v): %v", p, err)
	}
	return bs, l
}

func TestBootSectorRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    FormatParams
		typ  Type
	}{
		{"FAT12", FormatParams{Size: 1440 * kib, Label: "floppy"}, FAT12},
		{"FAT16", FormatParams{Size: 64 * mib, VolumeID: 0xCAFEF00D}, FAT16},
		{"FAT32", FormatParams{Size: 1 * gib, Label: "BIG"}, FAT32},
		{"FAT32 4K sectors", FormatParams{Size: 1 * gib, SectorSize: 4096}, FAT32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs, l := mustPlan(t, tc.p)
			if l.Type != tc.typ {
				t.Fatalf("type %s, want %s", l.Type, tc.typ)
			}
			sec := make([]byte, l.SectorSize)
			bs.Encode(sec)
			got, err := DecodeBootSector(sec)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got.BootCode, stubBootCode) {
				t.Errorf("boot code % x does not start with the stub", got.BootCode[:8])
			}
			want := *bs
			want.BootCode = got.BootCode
			if d := cmp.Diff(&want, got); d != "" {
				t.Errorf("decode(encode(x)) != x:\n%s", d)
			}
			again := make([]byte, l.SectorSize)
			got.Encode(again)
			if !bytes.Equal(sec, again) {
				t.Error("encode(decode(b)) != b")
			}

			// With boot code and the dirty bit: an exact round trip.
			code := bytes.Repeat([]byte{0x90}, len(got.BootCode))
			code[len(code)-1] = 0xC3
			x := want
			x.BootCode = code
			x.SetDirty(true)
			x.Encode(sec)
			ext := ext16
			if x.Is32 {
				ext = ext32
			}
			if sec[ext+relState]&1 != 1 {
				t.Errorf("dirty bit not at %#x", ext+relState)
			}
			y, err := DecodeBootSector(sec)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(&x, y); d != "" {
				t.Errorf("round trip with boot code and dirty bit:\n%s", d)
			}
			if !y.Dirty() {
				t.Error("Dirty() false after SetDirty(true)")
			}
			y.SetDirty(false)
			if y.Dirty() || y.State != x.State&^1 {
				t.Errorf("SetDirty(false): state %#x", y.State)
			}
		})
	}
}

func TestDecodeMkfsSectors(t *testing.T) {
	for _, tc := range []struct {
		file  string
		typ   Type
		label string
	}{
		{"boot-fat12.bin", FAT12, "TESTVOL"},
		{"boot-fat16.bin", FAT16, "TESTVOL"},
		{"boot-fat32.bin", FAT32, "TESTVOL"},
	} {
		raw := readTestdata(t, tc.file)
		bs, err := DecodeBootSector(raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		l, err := bs.Layout()
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if l.Type != tc.typ || bs.Label() != tc.label || bs.VolumeID != 0x12345678 {
			t.Errorf("%s: type %s label %q id %#x", tc.file, l.Type, bs.Label(), bs.VolumeID)
		}
		out := make([]byte, 512)
		bs.Encode(out)
		if !bytes.Equal(out, raw) {
			t.Errorf("%s: re-encoding changes bytes", tc.file)
		}
		if w := bs.Warnings(); len(w) != 0 {
			t.Errorf("%s: warnings on a fresh mkfs.fat volume: %q", tc.file, w)
		}
	}
}

func TestLabel(t *testing.T) {
	bs := &BootSector{BootSig: ExtBootSig}
	for _, tc := range []struct{ raw, want string }{
		{"NO NAME    ", ""},
		{"BOOT       ", "BOOT"},
		{"A B        ", "A B"},
		{"\x8eRGER      ", "ÄRGER"},
	} {
		copy(bs.VolumeLabel[:], tc.raw)
		if got := bs.Label(); got != tc.want {
			t.Errorf("Label(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
	bs.BootSig = 0
	if got := bs.Label(); got != "" {
		t.Errorf("Label without extended boot signature = %q", got)
	}
}

// TestValidateErrors corrupts one field of real mkfs.fat sectors at a time.
func TestValidateErrors(t *testing.T) {
	le := binary.LittleEndian
	for _, tc := range []struct {
		file   string
		name   string
		mutate func(b []byte)
		want   error
		text   string // the whole error message
	}{
		{"boot-fat16.bin", "short", nil, ErrNotFAT, "fat: boot sector: length 100: shorter than 512 bytes"},
		{"boot-fat16.bin", "jump", func(b []byte) { b[0] = 0 }, ErrNotFAT, "fat: boot sector: jump 00 3c 90 at 0x00: not an x86 jump (EB xx 90 or E9 xx xx)"},
		{"boot-fat16.bin", "bps 300", func(b []byte) { le.PutUint16(b[0x0b:], 300) }, ErrNotFAT, "fat: boot sector: bytes per sector 300 at 0x0b: not a power of two"},
		{"boot-fat16.bin", "bps 256", func(b []byte) { le.PutUint16(b[0x0b:], 256) }, ErrNotFAT, "fat: boot sector: bytes per sector 256 at 0x0b: less than 512"},
		{"boot-fat16.bin", "spc 3", func(b []byte) { b[0x0d] = 3 }, ErrNotFAT, "fat: boot sector: sectors per cluster 3 at 0x0d: not a power of two"},
		{"boot-fat16.bin", "spc 0", func(b []byte) { b[0x0d] = 0 }, ErrNotFAT, "fat: boot sector: sectors per cluster 0 at 0x0d: not a power of two"},
		{"boot-fat16.bin", "no FATs", func(b []byte) { b[0x10] = 0 }, ErrNotFAT, "fat: boot sector: number of FATs 0 at 0x10: no FAT"},
		{"boot-fat16.bin", "reserved 0", func(b []byte) { le.PutUint16(b[0x0e:], 0) }, ErrCorrupt, "fat: boot sector: reserved sectors 0 at 0x0e: the boot sector itself is reserved, so at least 1"},
		{"boot-fat16.bin", "media", func(b []byte) { b[0x15] = 0x12 }, ErrCorrupt, "fat: boot sector: media 0x12 at 0x15: not 0xf0 or 0xf8..0xff"},
		{"boot-fat16.bin", "total 0", func(b []byte) { le.PutUint16(b[0x13:], 0); le.PutUint32(b[0x20:], 0) }, ErrCorrupt, "fat: boot sector: total sectors 0 at 0x20: both the 16-bit (0x13) and the 32-bit count are zero"},
		{"boot-fat16.bin", "root 100", func(b []byte) { le.PutUint16(b[0x11:], 100) }, ErrCorrupt, "fat: boot sector: root entries 100 at 0x11: do not fill whole 512-byte sectors"},
		{"boot-fat16.bin", "root 0", func(b []byte) { le.PutUint16(b[0x11:], 0) }, ErrCorrupt, "fat: boot sector: root entries 0 at 0x11: FAT12/16 needs a root directory"},
		{"boot-fat32.bin", "fat32 size 0", func(b []byte) { le.PutUint32(b[0x24:], 0) }, ErrCorrupt, "fat: boot sector: sectors per FAT 0 at 0x24: both the 16-bit (0x16) and the 32-bit size are zero"},
		{"boot-fat32.bin", "fat32 root entries", func(b []byte) { le.PutUint16(b[0x11:], 16) }, ErrCorrupt, "fat: boot sector: root entries 16 at 0x11: must be 0 on FAT32"},
		{"boot-fat32.bin", "root cluster 1", func(b []byte) { le.PutUint32(b[0x2c:], 1) }, ErrCorrupt, "fat: boot sector: root cluster 1 at 0x2c: below the first data cluster 2"},
		{"boot-fat32.bin", "active FAT", func(b []byte) { le.PutUint16(b[0x28:], 0x82) }, ErrCorrupt, "fat: boot sector: active FAT 2 at 0x28: mirroring is off but there are only 2 FATs"},
		{"boot-fat32.bin", "fsinfo outside", func(b []byte) { le.PutUint16(b[0x30:], 32) }, ErrCorrupt, "fat: boot sector: FSINFO sector 32 at 0x30: outside the 32 reserved sectors"},
		{"boot-fat32.bin", "backup on fsinfo", func(b []byte) { le.PutUint16(b[0x32:], 1) }, ErrCorrupt, "fat: boot sector: backup boot sector 1 at 0x32: same sector as FSINFO"},
		{"boot-fat32.bin", "backup outside", func(b []byte) { le.PutUint16(b[0x32:], 40) }, ErrCorrupt, "fat: boot sector: backup boot sector 40 at 0x32: outside the 32 reserved sectors"},
		// Layout: fields valid one by one but inconsistent.
		{"boot-fat16.bin", "FAT too small", func(b []byte) { le.PutUint16(b[0x16:], 16) }, ErrCorrupt, "fat: boot sector: sectors per FAT 16 at 0x16: too small: 32751 clusters need 65506 bytes of FAT16, the FAT has 8192"},
		{"boot-fat16.bin", "past the end", func(b []byte) { le.PutUint32(b[0x20:], 292) }, ErrCorrupt, "fat: boot sector: total sectors 292 at 0x20: the data area would start at sector 292 (reserved 4 + 2 FATs of 128 + root 32), past the volume's end"},
		{"boot-fat16.bin", "FAT16 with FAT32 count", func(b []byte) { b[0x0d] = 1 }, ErrCorrupt, "fat: boot sector: sectors per FAT 128 at 0x16: a FAT12/16 layout with 130780 clusters (FAT16 allows at most 65524)"},
		{"boot-fat32.bin", "root cluster past end", func(b []byte) { le.PutUint32(b[0x2c:], 1<<27) }, ErrCorrupt, "fat: boot sector: root cluster 134217728 at 0x2c: beyond the last cluster 261628"},
		{"boot-fat16.bin", "no clusters", func(b []byte) { le.PutUint32(b[0x20:], 295) }, ErrCorrupt, "fat: boot sector: total sectors 295 at 0x20: no room for a single data cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := readTestdata(t, tc.file)
			if tc.mutate == nil {
				b = b[:100]
			} else {
				tc.mutate(b)
			}
			bs, err := DecodeBootSector(b)
			if err == nil {
				_, err = bs.Layout()
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v does not wrap %v", err, tc.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Structure != "boot sector" {
				t.Errorf("error %#v is not a boot sector FormatError", err)
			}
			if err.Error() != tc.text {
				t.Errorf("error\n got %s\nwant %s", err, tc.text)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	bs, _ := mustPlan(t, FormatParams{Size: 16 * mib, Type: FAT32, AllowSmallFAT32: true})
	bs.FSVersion = 0x0101
	bs.SetDirty(true)
	bs.BackupBootSector = 0
	got := strings.Join(bs.Warnings(), "\n")
	for _, want := range []string{"version 1.1", "dirty bit", "no backup boot sector", "FAT32 with only"} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %q lack %q", got, want)
		}
	}
}
