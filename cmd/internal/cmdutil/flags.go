package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// Flag names shared by the commands; man pages and completion use them too.
const (
	FlagSync      = "sync"
	FlagStats     = "stats"
	FlagJSON      = "json"
	FlagIOSize    = "io-size"
	FlagBuffered  = "buffered"
	FlagPartition = "partition"
	FlagForce     = "force"
	FlagWait      = "wait"
	FlagCodePage  = "codepage"
)

// OutputFlags are --stats and --json, which every command takes.
func OutputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: FlagStats, Usage: "print what reached the device on stderr: requests, bytes, average size, flushes, time"},
		&cli.BoolFlag{Name: FlagJSON, Usage: "print the result (and the I/O statistics) as one JSON object"},
	}
}

// IOFlags are the block I/O flags: --io-size and --buffered, plus --sync
// for commands that write.
func IOFlags(write bool) []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: FlagIOSize, Value: "4M", Usage: "largest read or write request, `SIZE` bytes (" + fio.SizeHelp + ")"},
		&cli.BoolFlag{Name: FlagBuffered, Usage: "use buffered I/O instead of O_DIRECT"},
		&cli.BoolFlag{Name: FlagWait, Usage: "wait while another process has the image locked, instead of failing"},
	}
	if write {
		fl = append(fl, Values(&cli.StringFlag{Name: FlagSync, Value: fio.DefaultSync.String(),
			Usage: "flush `POLICY`: none (no flushes; safe against a crash, not a power cut), close (a flush after the data, after the entries and after clearing the dirty bit), file (also after each file), always (O_DSYNC writes)"}, "none", "close", "file", "always"))
	}
	return fl
}

// ImageFlags are the flags that locate a volume and say how to read it:
// --partition and --codepage.
func ImageFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: FlagPartition, Usage: "use partition `N` (from 1; 5 and up are logical) of an MBR or GPT table (default: the only FAT or exFAT partition of a disk with a table)"},
		CodePageFlag(),
	}
}

// CodePageFlag is --codepage: the OEM code page of short names and labels
// (fmkfs takes it alone, for the label it writes).
func CodePageFlag() cli.Flag {
	var pages []string
	for _, n := range vol.CodePages() {
		pages = append(pages, strconv.Itoa(n))
	}
	return Values(&cli.IntFlag{Name: FlagCodePage, Value: vol.DefaultCodePage,
		Usage: fmt.Sprintf("DOS code page `N` of short names and labels, as mtools' and mkfs.fat's (one of %s)", strings.Join(pages, ", "))}, pages...)
}

// applyCodePage makes --codepage the code page of every volume the command
// opens. Commands that lack the flag get the default.
func applyCodePage(c *cli.Context) error {
	n := vol.DefaultCodePage
	if c.IsSet(FlagCodePage) {
		n = c.Int(FlagCodePage)
	}
	if err := vol.SetCodePage(n); err != nil {
		return fmt.Errorf("--codepage: %w", err)
	}
	return nil
}

// DeviceOptions builds pkg/io options from the shared flags. Every command
// calls it before it reads a volume, so it also applies --codepage.
func DeviceOptions(c *cli.Context, write bool) (fio.Options, error) {
	o := fio.Options{Write: write, Sync: fio.DefaultSync}
	if err := applyCodePage(c); err != nil {
		return o, err
	}
	if c.IsSet(FlagIOSize) || c.String(FlagIOSize) != "" {
		n, err := fio.ParseSize(c.String(FlagIOSize))
		if err != nil {
			return o, fmt.Errorf("--io-size: %w", err)
		}
		if n < 4096 || n > 1<<30 || n%4096 != 0 {
			return o, fmt.Errorf("--io-size %s: must be a multiple of 4 KiB between 4 KiB and 1 GiB", c.String(FlagIOSize))
		}
		o.IOSize = int(n)
	}
	o.Buffered = c.Bool(FlagBuffered)
	if write && c.String(FlagSync) != "" {
		p, err := fio.ParseSyncPolicy(c.String(FlagSync))
		if err != nil {
			return o, fmt.Errorf("--sync: %w", err)
		}
		o.Sync = p
	}
	o.Partition = c.Int(FlagPartition)
	if c.IsSet(FlagPartition) && o.Partition < 1 {
		return o, fmt.Errorf("--partition %d: %s; leave --partition out for a disk without a table, or for the only FAT or exFAT partition of one", o.Partition, PartitionRule)
	}
	o.Force = c.Bool(FlagForce)
	o.Wait = c.Bool(FlagWait)
	return o, nil
}

// OpenImage opens an image spec (PATH or PATH@@OFFSET) with the shared
// flags. Without --partition (or an offset, or --force) a disk with a
// partition table opens at its only FAT or exFAT partition (see
// choosePartition).
func OpenImage(c *cli.Context, spec string, write bool) (*fio.Device, error) {
	path, off, err := fio.ParseImageSpec(spec)
	if err != nil {
		return nil, err
	}
	o, err := DeviceOptions(c, write)
	if err != nil {
		return nil, err
	}
	o.Offset = off
	if !c.IsSet(FlagPartition) && off == 0 && !o.Force {
		if o.Partition, err = choosePartition(path, c.App.ErrWriter, c.App.Name); err != nil {
			return nil, err
		}
	}
	d, err := open(path, o, c.App.ErrWriter, c.App.Name, hasFlag(c.App.Flags, FlagForce))
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		// "open PATH: ..." from the system: name the image as given,
		// keeping what the error is (fio.ErrReadOnlyMedium) for callers.
		return nil, &specError{msg: spec + ": " + ErrText(pe.Err), err: err}
	}
	return d, err
}

// specError is an error renamed for the user, which still is what it wraps.
type specError struct {
	msg string
	err error
}

func (e *specError) Error() string { return e.msg }
func (e *specError) Unwrap() error { return e.err }

// Open opens a device with pkg/io for a command that has --force, and says
// which flag gets past a refusal. With o.Wait, SIGINT and SIGTERM end a
// wait for another process's lock.
func Open(path string, o fio.Options) (*fio.Device, error) { return open(path, o, nil, "", true) }

// open is Open, saying on w (when not nil) that it waits for a lock; the
// hint names --force only for a command that has it.
func open(path string, o fio.Options, w io.Writer, name string, force bool) (*fio.Device, error) {
	d, err := openWaiting(path, o, w, name)
	if err == nil && w != nil {
		WarnDevice(w, name, d)
	}
	var pe *fio.PlaceError
	if errors.As(err, &pe) {
		which := "N"
		if pe.Partition > 0 {
			which = fmt.Sprint(pe.Partition)
		}
		if !force {
			return nil, fmt.Errorf("%w; give --partition %s instead", err, which)
		}
		what := "to write there anyway"
		if errors.Is(err, fio.ErrPartitioned) {
			what = "to use the whole disk"
		}
		return nil, fmt.Errorf("%w; give --partition %s instead, or --force %s", err, which, what)
	}
	return d, err
}

var (
	warnedMu sync.Mutex
	warned   = map[string]bool{}
)

// WarnDevice prints on w what opening d let pass but the user should hear
// of (fio.Device.Warnings: a loop device attached to the image), each
// once however often the command opens the image.
func WarnDevice(w io.Writer, name string, d *fio.Device) {
	warnedMu.Lock()
	defer warnedMu.Unlock()
	for _, msg := range d.Warnings() {
		if !warned[msg] {
			warned[msg] = true
			Warn(w, name, "warning: %s", msg)
		}
	}
}

// PrintStats writes the device's statistics to w when --stats is set and
// --json is not (JSON output carries them instead).
func PrintStats(c *cli.Context, w io.Writer, dev *fio.Device) {
	if dev == nil || !c.Bool(FlagStats) || c.Bool(FlagJSON) {
		return
	}
	st := dev.Stats()
	st.WriteTo(w)
}

// VolumeFlags are a command's own flags followed by the shared ones of a
// command that opens a volume: --partition, the I/O flags (--sync too when
// it writes), --stats and --json.
func VolumeFlags(write bool, own ...cli.Flag) []cli.Flag {
	fl := append(own, ImageFlags()...)
	fl = append(fl, IOFlags(write)...)
	return append(fl, OutputFlags()...)
}

// AddressingHelp explains image paths in a command's usage text.
const AddressingHelp = "Paths inside an image are written ::/path (with -i IMAGE) or IMAGE::/path;\nIMAGE may be PATH@@OFFSET."

// WildcardHelp explains wildcards in a verb's usage text.
const WildcardHelp = "The last element of a path may hold wildcards (*, ?, [...]), matched as\nmtools matches them, without case; quote them from the shell. A name that\nexists as written wins, and \\[ is a literal bracket."
