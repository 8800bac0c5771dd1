package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"

	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

// params turns fmkfs's flags into format parameters. Values not given stay
// zero, which Plan reads as "as mkfs.fat would choose".
func params(c *cli.Context) (fat.FormatParams, error) {
	p := fat.FormatParams{AlignData: true}
	switch t := c.Int("fat"); t {
	case 0:
	case 12, 16, 32:
		p.Type = fat.Type(t)
	default:
		return p, fmt.Errorf("--fat %d: FAT types are 12, 16 and 32", t)
	}
	p.SectorSize = c.Int("sector-size")
	if c.IsSet("cluster-size") {
		n, err := fio.ParseSize(c.String("cluster-size"))
		if err != nil {
			return p, fmt.Errorf("--cluster-size: %w", err)
		}
		if n <= 0 || n > 1<<30 {
			return p, fmt.Errorf("--cluster-size %s: out of range", c.String("cluster-size"))
		}
		p.ClusterSize = int(n)
	}
	p.SectorsPerCluster = c.Int("sectors-per-cluster")
	p.ReservedSectors = c.Int("reserved")
	p.NumFATs = c.Int("fats")
	p.RootEntries = c.Int("root-entries")
	p.Label = c.String("label")
	for _, r := range p.Label {
		if r >= 0x80 {
			// mkfs.fat refuses them too: fsck.fat 4.2 takes any byte from
			// 0x80 up in a label for a control character and deletes it.
			return p, fmt.Errorf("--label %q: only ASCII characters are accepted (fsck.fat rejects others)", p.Label)
		}
	}
	if c.IsSet("media") {
		n, err := strconv.ParseUint(c.String("media"), 0, 8)
		if err != nil {
			return p, fmt.Errorf("--media %q: want a byte such as 0xF8", c.String("media"))
		}
		if n != 0xF0 && n < 0xF8 {
			return p, fmt.Errorf("--media 0x%02X: the media byte must be 0xF0 or 0xF8..0xFF", n)
		}
		p.Media = uint8(n)
	}
	if c.IsSet("hidden") {
		n, err := strconv.ParseUint(c.String("hidden"), 0, 32)
		if err != nil {
			return p, fmt.Errorf("--hidden %q: want a sector count", c.String("hidden"))
		}
		p.HiddenSectors = uint32(n)
	}
	for _, bad := range []struct {
		name string
		v    int
	}{{"sector-size", p.SectorSize}, {"sectors-per-cluster", p.SectorsPerCluster}, {"reserved", p.ReservedSectors}, {"fats", p.NumFATs}, {"root-entries", p.RootEntries}} {
		if bad.v < 0 {
			return p, fmt.Errorf("--%s %d: must not be negative", bad.name, bad.v)
		}
	}
	if c.IsSet("drive-number") {
		n, err := strconv.ParseUint(c.String("drive-number"), 0, 8)
		if err != nil {
			return p, fmt.Errorf("--drive-number %q: want a byte such as 0x80", c.String("drive-number"))
		}
		p.DriveNumber = uint8(n)
	}
	for _, g := range []struct {
		name string
		dst  *uint16
	}{{"heads", &p.Heads}, {"sectors-per-track", &p.SectorsPerTrack}} {
		if !c.IsSet(g.name) {
			continue
		}
		if n := c.Int(g.name); n < 1 || n > 255 && g.name == "heads" || n > 63 && g.name == "sectors-per-track" {
			return p, fmt.Errorf("--%s %d: out of range (heads 1..255, sectors per track 1..63)", g.name, n)
		}
		*g.dst = uint16(c.Int(g.name))
	}
	p.AllowSmallFAT32 = c.Bool(cmdutil.FlagForce)
	id, err := volumeID(c)
	if err != nil {
		return p, err
	}
	p.VolumeID = id
	return p, nil
}

// volumeID is --volume-id, else derived from SOURCE_DATE_EPOCH (so that
// reproducible builds give identical images), else random.
func volumeID(c *cli.Context) (uint32, error) {
	if c.IsSet("volume-id") {
		n, err := strconv.ParseUint(c.String("volume-id"), 16, 32)
		if err != nil {
			return 0, fmt.Errorf("--volume-id %q: want up to 8 hex digits", c.String("volume-id"))
		}
		return uint32(n), nil
	}
	if t, ok := cmdutil.SourceDateEpoch(); ok {
		return uint32(t.Unix()), nil
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint32(time.Now().UnixNano()), nil
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}

// identifiers are the table's: the MBR disk identifier and the GPT GUIDs
// ("" lets go-diskfs pick random ones).
type identifiers struct {
	mbr                uint32
	diskGUID, partGUID string
}

var guidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// tableIDs chooses the table's identifiers: --disk-id (8 hex digits, or a
// GUID for a GPT), else derived from the volume id when the build is
// reproducible (SOURCE_DATE_EPOCH or --volume-id), so that the same
// inputs give byte-identical images, else random.
func tableIDs(c *cli.Context, reproducible bool, volumeID uint32) (identifiers, error) {
	var ids identifiers
	if c.IsSet("disk-id") {
		s := strings.TrimPrefix(strings.TrimPrefix(c.String("disk-id"), "0x"), "0X")
		if guidRE.MatchString(s) {
			if c.String("table") != "gpt" {
				return ids, fmt.Errorf("--disk-id %s: a GUID names a GPT disk; an MBR takes 8 hex digits", s)
			}
			ids.diskGUID, ids.partGUID = strings.ToUpper(s), guidFrom("partition of "+strings.ToUpper(s))
			return ids, nil
		}
		n, err := strconv.ParseUint(s, 16, 32)
		if err != nil {
			return ids, fmt.Errorf("--disk-id %q: want up to 8 hex digits (or a GUID with --table gpt)", c.String("disk-id"))
		}
		ids.mbr = uint32(n)
		ids.diskGUID, ids.partGUID = guidFrom(fmt.Sprintf("disk %08x", n)), guidFrom(fmt.Sprintf("partition %08x", n))
		return ids, nil
	}
	if reproducible {
		h := sha256.Sum256([]byte(fmt.Sprintf("ftools mbr disk id %08x", volumeID)))
		ids.mbr = binary.LittleEndian.Uint32(h[:])
		ids.diskGUID, ids.partGUID = guidFrom(fmt.Sprintf("disk %08x", volumeID)), guidFrom(fmt.Sprintf("partition %08x", volumeID))
		return ids, nil
	}
	var b [4]byte
	for ids.mbr == 0 {
		if _, err := rand.Read(b[:]); err != nil {
			return ids, fmt.Errorf("choosing a disk identifier: %w", err)
		}
		ids.mbr = binary.LittleEndian.Uint32(b[:])
	}
	return ids, nil
}

// guidFrom derives a GPT GUID from a name, so that reproducible builds
// give identical tables: a random-format (version 4) GUID whose bits come
// from a hash.
func guidFrom(what string) string {
	h := sha256.Sum256([]byte("ftools gpt " + what))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return strings.ToUpper(fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16]))
}
