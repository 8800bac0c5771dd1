package io

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// run runs a command and fails the test with its output if it fails.
func run(t *testing.T, stdin, name string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is needed for this test: %v", name, err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// partitionedImage makes an 8 MiB image holding the sfdisk script's table.
func partitionedImage(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "disk.img")
	must(t, CreateImage(p, 8<<20))
	run(t, script, "sfdisk", "--quiet", p)
	return p
}

func TestPartitionMBRAndGPT(t *testing.T) {
	for label, typ := range map[string]string{"dos": ", type=c", "gpt": ""} {
		t.Run(label, func(t *testing.T) {
			img := partitionedImage(t, "label: "+label+"\nstart=2048, size=4096"+typ+"\nstart=8192, size=2048"+typ+"\n")
			d, err := Open(img, Options{Write: true, Partition: 1})
			must(t, err)
			if d.Start() != 1<<20 || d.Size() != 2<<20 {
				t.Errorf("partition 1: start %d size %d", d.Start(), d.Size())
			}
			_, err = d.WriteAt([]byte("part1"), 0)
			must(t, err)
			must(t, d.Close())
			raw, _ := os.ReadFile(img)
			if string(raw[1<<20:1<<20+5]) != "part1" {
				t.Error("write did not land at the partition start")
			}
			d, err = Open(img, Options{Partition: 2, Offset: 512})
			must(t, err)
			if d.Start() != 8192*512+512 || d.Size() != 2048*512-512 {
				t.Errorf("partition 2 + offset: start %d size %d", d.Start(), d.Size())
			}
			must(t, d.Close())
			_, err = Open(img, Options{Partition: 3})
			if !errors.Is(err, ErrNoPartition) || !strings.Contains(err.Error(), "holds 2 partitions [1 2]") {
				t.Errorf("partition 3: %v", err)
			}
			if _, err := Open(img, Options{Partition: 2, Offset: 2 << 20}); !errors.Is(err, ErrOutOfRange) {
				t.Errorf("offset past the partition: %v", err)
			}
		})
	}
}

// A table with one partition is described in the singular (issue 13:
// "holds 1 partitions").
func TestPartitionNotFoundSingular(t *testing.T) {
	img := partitionedImage(t, "label: dos\nstart=2048, size=4096, type=c\n")
	_, err := Open(img, Options{Partition: 3})
	if !errors.Is(err, ErrNoPartition) || !strings.Contains(err.Error(), "holds 1 partition [1]") {
		t.Errorf("partition 3 of a one-partition table: %v", err)
	}
}

func TestPartitionOnFATImage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fat.img")
	must(t, CreateImage(p, 8<<20))
	run(t, "", "mkfs.fat", p)
	_, err := Open(p, Options{Partition: 1})
	if !errors.Is(err, ErrNoPartition) || !strings.Contains(err.Error(), "FAT, exFAT or NTFS boot sector") {
		t.Errorf("partition on a FAT image: %v", err)
	}
	d, err := Open(p, Options{})
	must(t, err)
	must(t, d.Close())
}

func TestPartitionNoTable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "blank.img")
	must(t, CreateImage(p, 1<<20))
	if _, err := Open(p, Options{Partition: 1}); !errors.Is(err, ErrNoPartition) || !strings.Contains(err.Error(), "no MBR or GPT") {
		t.Errorf("blank image: %v", err)
	}
}

func TestPartitionPastEnd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mbr.img")
	mbr := make([]byte, 2<<20)
	e := mbr[446:]
	e[4] = 0x0c
	binary.LittleEndian.PutUint32(e[8:], 2048)
	binary.LittleEndian.PutUint32(e[12:], 100000) // far past the 2 MiB file
	mbr[510], mbr[511] = 0x55, 0xAA
	must(t, os.WriteFile(p, mbr, 0o644))
	if _, err := Open(p, Options{Partition: 1}); !errors.Is(err, ErrNoPartition) || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("partition past the end: %v", err)
	}
}

func TestCorruptGPTHeader(t *testing.T) {
	img := partitionedImage(t, "label: gpt\nstart=2048, size=4096\n")
	raw, err := os.ReadFile(img)
	must(t, err)
	for _, lba := range []int{1, len(raw)/512 - 1} {
		h := raw[lba*512 : lba*512+gptHeaderLen]
		binary.LittleEndian.PutUint32(h[gptEntryCount:], 1<<30) // a valid CRC over a huge array
		clear(h[gptCRCOff : gptCRCOff+4])
		binary.LittleEndian.PutUint32(h[gptCRCOff:], crc32.ChecksumIEEE(h))
	}
	must(t, os.WriteFile(img, raw, 0o644))
	_, err = Open(img, Options{Partition: 1})
	if !errors.Is(err, ErrNoPartition) || !strings.Contains(err.Error(), "entries") {
		t.Errorf("corrupt GPT: %v", err)
	}
}

// FuzzReadTable feeds arbitrary first sectors to the table reader: it must
// never panic or allocate without bound.
func FuzzReadTable(f *testing.F) {
	var seed [1024]byte
	seed[510], seed[511] = 0x55, 0xAA
	f.Add(seed[:])
	copy(seed[512:], "EFI PART")
	f.Add(seed[:])
	f.Fuzz(func(t *testing.T, b []byte) {
		const size = 256 << 10
		d := newDevice(&memBackend{data: make([]byte, size)}, "fuzz", size, 512, 1, 4096, false, true, SyncNone)
		_, err := d.WriteAt(b[:min(len(b), size)], 0)
		must(t, err)
		if tab, err := d.readTable(); err == nil {
			tab.find("fuzz", 1)
		}
	})
}

// An MBR with an extended partition: the container is not offered, its
// logical partitions are, numbered 5 and up as Linux numbers them.
func TestPartitionLogical(t *testing.T) {
	img := partitionedImage(t, "label: dos\nstart=2048, size=2048, type=c\nstart=4096, size=8192, type=5\nstart=6144, size=1024, type=83\nstart=10240, size=2048, type=c\n")
	pt, err := ReadPartitions(img)
	must(t, err)
	var got []string
	for _, p := range pt.Partitions {
		got = append(got, fmt.Sprintf("%d@%d+%d/%02x", p.Index, p.Start/512, p.Size/512, p.Type))
	}
	want := "1@2048+2048/0c 5@6144+1024/83 6@10240+2048/0c"
	if strings.Join(got, " ") != want || pt.Kind != "mbr" {
		t.Fatalf("%s table: %s, want %s", pt.Kind, strings.Join(got, " "), want)
	}
	if !pt.Partitions[0].MayHoldFAT() || pt.Partitions[1].MayHoldFAT() {
		t.Errorf("MayHoldFAT: %v %v", pt.Partitions[0].MayHoldFAT(), pt.Partitions[1].MayHoldFAT())
	}
	d, err := Open(img, Options{Partition: 6})
	must(t, err)
	if d.Start() != 10240*512 || d.Size() != 2048*512 {
		t.Errorf("partition 6: start %d size %d", d.Start(), d.Size())
	}
	must(t, d.Close())
	if _, err := Open(img, Options{Partition: 2}); !errors.Is(err, ErrNoPartition) || !strings.Contains(err.Error(), "[1 5 6]") {
		t.Errorf("the extended container as a partition: %v", err)
	}
}

// A GPT is read only behind a protective MBR: an old GPT left under a
// newer MBR is ignored, and the 0xEE entry is never a partition.
func TestPartitionStaleGPT(t *testing.T) {
	img := partitionedImage(t, "label: gpt\nstart=4096, size=4096\n")
	raw, err := os.ReadFile(img)
	must(t, err)
	pt, err := ReadPartitions(img)
	must(t, err)
	if pt.Kind != "gpt" || len(pt.Partitions) != 1 || pt.Partitions[0].Start != 4096*512 || pt.Partitions[0].TypeGUID == "" {
		t.Fatalf("GPT: %+v", pt)
	}
	// Replace the protective MBR by an MBR entry at 1 MiB, as a tool that
	// rewrites only sector 0 would.
	e := raw[mbrEntriesOff:]
	clear(e[:64])
	e[mbrTypeOff] = 0x0c
	binary.LittleEndian.PutUint32(e[8:], 2048)
	binary.LittleEndian.PutUint32(e[12:], 2048)
	must(t, os.WriteFile(img, raw, 0o644))
	pt, err = ReadPartitions(img)
	must(t, err)
	if pt.Kind != "mbr" || len(pt.Partitions) != 1 || pt.Partitions[0].Start != 1<<20 {
		t.Fatalf("MBR over a stale GPT: %+v", pt)
	}
}

// An MBR image made for 4096-byte sectors is read in 4096-byte sectors
// when the partition's start holds a boot sector of that size.
func TestPartitionMBR4096Image(t *testing.T) {
	p := filepath.Join(t.TempDir(), "4k.img")
	raw := make([]byte, 16<<20)
	e := raw[mbrEntriesOff:]
	e[mbrTypeOff] = 0x0c
	binary.LittleEndian.PutUint32(e[8:], 256)  // 1 MiB in 4096-byte sectors
	binary.LittleEndian.PutUint32(e[12:], 512) // 2 MiB
	raw[510], raw[511] = 0x55, 0xAA
	bs := raw[1<<20:]
	bs[0], bs[1], bs[2] = 0xEB, 0x58, 0x90
	binary.LittleEndian.PutUint16(bs[bpbBytesPerSec:], 4096)
	bs[510], bs[511] = 0x55, 0xAA
	must(t, os.WriteFile(p, raw, 0o644))
	pt, err := ReadPartitions(p)
	must(t, err)
	if pt.SectorSize != 4096 || pt.Partitions[0].Start != 1<<20 || pt.Partitions[0].Size != 2<<20 {
		t.Fatalf("4096-byte MBR image: %+v", pt)
	}
}

// An offset that starts a partition ends where it ends; writing one that
// starts inside a partition or in none is refused unless forced, and
// reading it is bounded by the next partition.
func TestOffsetBounds(t *testing.T) {
	img := partitionedImage(t, "label: dos\nstart=2048, size=4096, type=c\nstart=8192, size=4096, type=83\n")
	d, err := Open(img, Options{Write: true, Offset: 1 << 20})
	must(t, err)
	if d.Size() != 4096*512 {
		t.Errorf("offset at partition 1: %d bytes, want %d", d.Size(), 4096*512)
	}
	if _, err := d.WriteAt([]byte{1}, d.Size()); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("write past the partition: %v", err)
	}
	must(t, d.Close())
	var pe *PlaceError
	if _, err := Open(img, Options{Write: true, Offset: 1<<20 + 512}); !errors.As(err, &pe) || pe.Partition != 1 || !errors.Is(err, ErrOutsidePartition) {
		t.Errorf("inside partition 1: %v", err)
	}
	if _, err := Open(img, Options{Write: true, Offset: 3 << 20}); !errors.Is(err, ErrOutsidePartition) || !strings.Contains(err.Error(), "no partition") {
		t.Errorf("between partitions: %v", err)
	}
	d, err = Open(img, Options{Write: true, Force: true, Offset: 3 << 20})
	must(t, err)
	if d.Size() != 1<<20 {
		t.Errorf("forced between partitions: %d bytes, want up to partition 2 (1 MiB)", d.Size())
	}
	must(t, d.Close())
	d, err = Open(img, Options{Offset: 1<<20 + 512})
	must(t, err)
	if d.Size() != 4096*512-512 {
		t.Errorf("reading inside partition 1: %d bytes", d.Size())
	}
	must(t, d.Limit(1000))
	if _, err := d.ReadAt(make([]byte, 1), 1000); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("read past Limit: %v", err)
	}
	must(t, d.Close())
}
