package io

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// plantSignatures writes, from byte base of raw (a volume of n bytes), the
// magic of every structure WipeSignatures knows.
func plantSignatures(raw []byte, base, n int64) {
	v := raw[base : base+n]
	bootSector := func(off int64, oem string, bps uint16) {
		b := v[off:]
		b[0], b[1], b[2] = 0xEB, 0x58, 0x90
		copy(b[3:], oem)
		binary.LittleEndian.PutUint16(b[bpbBytesPerSec:], bps)
		b[510], b[511] = 0x55, 0xAA
	}
	bootSector(0, "mkfs.fat", 512)
	bootSector(6*512, "mkfs.fat", 512)
	bootSector(12*4096, "EXFAT   ", 0)
	bootSector(n-4096, "NTFS    ", 0)
	copy(v[512:], "LABELONE")
	copy(v[512+24:], "LVM2 001")
	binary.LittleEndian.PutUint32(v[4096:], mdMagic)
	binary.LittleEndian.PutUint16(v[1024+extMagicOff:], 0xEF53)
	copy(v[8192-10:], "SWAPSPACE2")
	copy(v[isoFirstOff+1:], "CD001")
	copy(v[isoFirstOff+isoDescLen+1:], "CD001")
	copy(v[btrfsSuperOff+btrfsMagicOff:], "_BHRfS_M")
	copy(v[n-512:], "EFI PART")
}

// Every planted signature inside the window is found and zeroed, and not a
// byte outside it changes.
func TestWipeSignatures(t *testing.T) {
	const base, n = 1 << 20, 4 << 20
	raw := bytes.Repeat([]byte{0xA5}, base+n+(1<<20))
	plantSignatures(raw, 0, base)       // before the window: must survive
	plantSignatures(raw, base+n, 1<<20) // after it: must survive
	plantSignatures(raw, base, n)       // inside: must go
	p := filepath.Join(t.TempDir(), "disk.img")
	must(t, os.WriteFile(p, raw, 0o644))
	d, err := Open(p, Options{Write: true, Offset: base, Buffered: true})
	must(t, err)
	d.size = n
	found, err := WipeSignatures(d)
	must(t, err)
	must(t, d.Close())
	var names []string
	for _, s := range found {
		names = append(names, s.Name)
	}
	for _, want := range []string{"FAT boot sector", "FAT backup boot sector", "exFAT backup boot sector", "NTFS backup boot sector",
		"LVM2 label", "MD RAID superblock", "ext2/3/4 superblock", "swap signature", "ISO 9660/UDF volume descriptor",
		"btrfs superblock", "GPT backup header"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not found; found %q", want, names)
		}
	}
	got, err := os.ReadFile(p)
	must(t, err)
	want := bytes.Clone(raw)
	for _, s := range found {
		clear(want[base+s.Offset : base+s.Offset+s.Size])
	}
	if !bytes.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("byte %d is %#x, want %#x (only the found signatures inside [%d, %d) may change)", i, got[i], want[i], base, base+n)
			}
		}
	}
	// Nothing is left to find.
	d, err = Open(p, Options{Write: true, Offset: base, Buffered: true})
	must(t, err)
	d.size = n
	again, err := WipeSignatures(d)
	must(t, err)
	must(t, d.Close())
	if len(again) != 0 {
		t.Errorf("a second wipe still finds %+v", again)
	}
}

// Writing an MBR clears both GPT headers and entry arrays, at either
// sector size; writing a GPT rewrites sector 0 whole.
func TestWriteTableRemovesOtherKind(t *testing.T) {
	img := partitionedImage(t, "label: gpt\nstart=4096, size=4096\n")
	// A partitioned image is written whole only with Force.
	if _, err := Open(img, Options{Write: true, Buffered: true}); !errors.Is(err, ErrPartitioned) {
		t.Fatalf("writing a partitioned image whole: %v, want ErrPartitioned", err)
	}
	d, err := Open(img, Options{Write: true, Buffered: true, Force: true})
	must(t, err)
	must(t, WritePartitionTable(d, TableSpec{Kind: "mbr", Start: 1 << 20, Size: 2 << 20, MBRType: 0x0c, DiskID: 0x12345678}))
	must(t, d.Close())
	raw, err := os.ReadFile(img)
	must(t, err)
	if bytes.Contains(raw, []byte("EFI PART")) {
		t.Error("a GPT header survived the MBR")
	}
	if !bytes.Equal(raw[1024:1024+128*128], make([]byte, 128*128)) || !bytes.Equal(raw[len(raw)-33*512:len(raw)-512], make([]byte, 32*512)) {
		t.Error("a GPT entry array survived the MBR")
	}
	pt, err := ReadPartitions(img)
	must(t, err)
	if pt.Kind != "mbr" || pt.DiskID != "12345678" || len(pt.Partitions) != 1 {
		t.Fatalf("after the MBR: %+v", pt)
	}
	d, err = Open(img, Options{Write: true, Buffered: true, Force: true})
	must(t, err)
	must(t, WritePartitionTable(d, TableSpec{Kind: "gpt", Start: 1 << 20, Size: 2 << 20, ESP: true}))
	must(t, d.Close())
	pt, err = ReadPartitions(img)
	must(t, err)
	if pt.Kind != "gpt" || len(pt.Partitions) != 1 || pt.Partitions[0].Name != espName || pt.Partitions[0].TypeGUID != "C12A7328-F81F-11D2-BA4B-00A0C93EC93B" {
		t.Fatalf("after the GPT: %+v", pt)
	}
	raw, err = os.ReadFile(img)
	must(t, err)
	if raw[mbrEntriesOff+16+mbrTypeOff] != 0 || binary.LittleEndian.Uint32(raw[mbrDiskIDOff:]) != 0 || raw[mbrEntriesOff+mbrTypeOff] != mbrProtective {
		t.Error("the old MBR's entries or disk id survived under the protective MBR")
	}
}
