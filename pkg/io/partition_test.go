package io

import (
	"encoding/binary"
	"errors"
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
