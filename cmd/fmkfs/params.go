package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"

	"github.com/ftools/ftools/pkg/fat"
	fio "github.com/ftools/ftools/pkg/io"
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
	if err := fatSpare(c.String("fat-spare"), &p); err != nil {
		return p, err
	}
	p.SectorsPerCluster = c.Int("sectors-per-cluster")
	p.ReservedSectors = c.Int("reserved")
	p.NumFATs = c.Int("fats")
	p.RootEntries = c.Int("root-entries")
	p.Label = c.String("label") // checked by Plan, with the label rules
	p.AlignData = !c.Bool("no-align")
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
	if err := geometry(c, &p); err != nil {
		return p, err
	}
	if c.IsSet("backup-sector") {
		n, err := strconv.ParseUint(c.String("backup-sector"), 0, 16)
		if err != nil {
			return p, fmt.Errorf("--backup-sector %q: want a reserved sector number (0 for no backup)", c.String("backup-sector"))
		}
		p.BackupBootSector = int(n)
		if n == 0 {
			p.BackupBootSector = -1
		}
	}
	if c.IsSet("boot-message") {
		msg, err := bootMessage(c.String("boot-message"))
		if err != nil {
			return p, err
		}
		p.BootMessage = msg
	}
	p.AllowSmallFAT32 = c.Bool(cmdutil.FlagForce)
	id, err := volumeID(c)
	if err != nil {
		return p, err
	}
	// The id is always chosen here: 0 (given, or from SOURCE_DATE_EPOCH=0)
	// is written as 0.
	p.VolumeID, p.ZeroVolumeID = id, id == 0
	return p, nil
}

// fatSpare reads --fat-spare: SIZE (bytes, with the size suffixes) or Nx.
func fatSpare(v string, p *fat.FormatParams) error {
	if v == "" {
		return nil
	}
	if n, ok := strings.CutSuffix(strings.ToLower(v), "x"); ok {
		k, err := strconv.Atoi(n)
		if err != nil || k < 1 || k > 1<<20 {
			return fmt.Errorf("--fat-spare %q: want a size (%s) or Nx, N times this volume", v, fio.SizeHelp)
		}
		p.FATSpareTimes = k
		return nil
	}
	n, err := fio.ParseSize(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("--fat-spare %q: want a size (%s) or Nx, N times this volume", v, fio.SizeHelp)
	}
	p.FATSpareFor = n
	return nil
}

// geometry sets the CHS geometry from -g HEADS/SECTORS, --heads and
// --sectors-per-track.
func geometry(c *cli.Context, p *fat.FormatParams) error {
	heads, spt := c.Int("heads"), c.Int("sectors-per-track")
	if c.IsSet("geometry") {
		if c.IsSet("heads") || c.IsSet("sectors-per-track") {
			return errors.New("give the geometry as -g HEADS/SECTORS or with --heads and --sectors-per-track, not both")
		}
		h, s, ok := strings.Cut(c.String("geometry"), "/")
		var err1, err2 error
		heads, err1 = strconv.Atoi(h)
		spt, err2 = strconv.Atoi(s)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("--geometry %q: want HEADS/SECTORS, such as 255/63", c.String("geometry"))
		}
	}
	if c.IsSet("heads") || c.IsSet("geometry") {
		if heads < 1 || heads > 255 {
			return fmt.Errorf("--heads %d: out of range (heads 1..255)", heads)
		}
		p.Heads = uint16(heads)
	}
	if c.IsSet("sectors-per-track") || c.IsSet("geometry") {
		if spt < 1 || spt > 63 {
			return fmt.Errorf("--sectors-per-track %d: out of range (sectors per track 1..63)", spt)
		}
		p.SectorsPerTrack = uint16(spt)
	}
	return nil
}

// bootMessage reads -m's file ("-": standard input) and makes it what
// the BIOS prints: line feeds become CR LF and tabs are expanded to
// 8-column stops, as mkfs.fat does.
func bootMessage(name string) ([]byte, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(io.LimitReader(os.Stdin, 64<<10))
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("--boot-message: %w", err)
	}
	out := []byte{}
	col := 0
	for _, ch := range b {
		switch ch {
		case '\n':
			out, col = append(out, '\r', '\n'), 0
		case '\t':
			for n := 8 - col%8; n > 0; n-- {
				out, col = append(out, ' '), col+1
			}
		case '\r':
			out, col = append(out, ch), 0
		default:
			out, col = append(out, ch), col+1
		}
	}
	return out, nil
}

// invariantTime is the clock of fmkfs --invariant: the one mkfs.fat
// --invariant uses, so that both make the same label entry.
var invariantTime = time.Unix(1426325213, 0)

// invariantID is the volume id of fmkfs --invariant, as mkfs.fat's.
const invariantID = 0x1234ABCD

// volumeID is --volume-id, else --invariant's, else derived from
// SOURCE_DATE_EPOCH (so that reproducible builds give identical images),
// else random.
func volumeID(c *cli.Context) (uint32, error) {
	if c.IsSet("volume-id") {
		n, err := strconv.ParseUint(c.String("volume-id"), 16, 32)
		if err != nil {
			return 0, fmt.Errorf("--volume-id %q: want up to 8 hex digits", c.String("volume-id"))
		}
		return uint32(n), nil
	}
	if c.Bool("invariant") {
		return invariantID, nil
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
