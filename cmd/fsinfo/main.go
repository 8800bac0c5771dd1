// Command fsinfo shows a FAT volume (boot sector, FSINFO, regions, free
// space) and sets FSINFO's next free cluster and free count.
package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: "next-cluster", Usage: "set FSINFO's next free cluster hint to `N` (allocation starts after N); prints the old and the new value"},
		&cli.StringFlag{Name: "free-count", Usage: "set FSINFO's free cluster count to `N` (right or wrong); prints the old and the new value"},
		&cli.BoolFlag{Name: "recount", Usage: "count the free clusters in the FAT and write the true count (and a valid hint) to FSINFO; prints the old and the new values"},
		cmdutil.VerboseFlag("also print a hex dump of the boot sector (as minfo -v)"),
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fsinfo", "show a FAT or exFAT volume; set FSINFO's next free cluster and free count",
		"fsinfo [flags] IMAGE[@@OFFSET]\n\nWith --next-cluster, --free-count or --recount, fsinfo prints what it changed\n(old and new values); without them, the whole volume.", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
			return err
		}
		return show(c, c.Args().First(), stdout, stderr)
	}
	return cmdutil.Run(app, args)
}

func parseCount(c *cli.Context, name string) (uint32, bool, error) {
	if !c.IsSet(name) {
		return 0, false, nil
	}
	s := c.String(name)
	n, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		// Name only what the volume can take: FSINFO holds 32 bits, but
		// a hint is a cluster number (2 and up) and a count no more than
		// the clusters; 0xFFFFFFFF is FSINFO's "unknown" for both.
		want := "a count of free clusters (0 up to the volume's clusters)"
		if name == "next-cluster" {
			want = "a cluster number (2 up to the volume's last cluster)"
		}
		return 0, false, fmt.Errorf("--%s %q: want %s, or 0xffffffff for unknown", name, s, want)
	}
	return uint32(n), true, nil
}

// change is one FSINFO field fsinfo set.
type change struct {
	Field string `json:"field"` // "next_cluster" or "free_count"
	Old   uint32 `json:"old"`   // 4294967295 (0xffffffff) is "unknown"
	New   uint32 `json:"new"`
}

func show(c *cli.Context, spec string, stdout, stderr io.Writer) error {
	next, setNext, err := parseCount(c, "next-cluster")
	if err != nil {
		return err
	}
	free, setFree, err := parseCount(c, "free-count")
	if err != nil {
		return err
	}
	recount := c.Bool("recount")
	if recount && setFree {
		return fmt.Errorf("--recount and --free-count both set the free count: give one")
	}
	write := setNext || setFree || recount
	dev, err := cmdutil.OpenImage(c, spec, write)
	if err != nil {
		return err
	}
	defer dev.Close()
	ex, err := vol.IsExFAT(dev)
	if err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	} else if ex && write {
		return fmt.Errorf("%s: --next-cluster, --free-count and --recount set FSINFO, which FAT32 has and exFAT has not (exFAT counts free clusters in its allocation bitmap)", spec)
	}
	v, err := vol.OpenAs(dev, ex)
	if err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	var old vol.FSInfo
	if f, ok := v.(vol.FATFeatures); ok {
		if fi := f.FSInfo(); fi != nil {
			old = *fi
		}
		if recount {
			err = f.Recount()
		}
		if err == nil && setFree {
			err = f.SetFreeCount(free)
		}
		if err == nil && setNext {
			err = f.SetNextCluster(next)
		}
	}
	if err != nil {
		v.Close()
		return fmt.Errorf("%s: %s", spec, cmdutil.ErrText(err))
	}
	d, err := vol.Describe(v) // before Close: the FAT is valid until then
	if err != nil {
		return fmt.Errorf("%s: %s", spec, cmdutil.ErrText(err))
	}
	var info cmdutil.Reporter
	var fatInfo *volumeInfo
	var exInfo *exfatInfo
	if d.FAT != nil {
		fatInfo = describe(d)
		info = fatInfo
		if write {
			fatInfo.Changes = changes(old, d.FAT.FSInfo, setNext || recount, setFree || recount)
		}
	} else {
		exInfo = describeExFAT(d)
		info = exInfo
	}
	var boot []byte
	if c.Bool(cmdutil.FlagVerbose) {
		boot = make([]byte, d.BytesPerSector)
		if _, err := dev.ReadAt(boot, 0); err != nil {
			v.Close()
			return fmt.Errorf("%s: reading the boot sector: %s", spec, cmdutil.ErrText(err))
		}
	}
	if err := v.Close(); err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	if err := dev.Close(); err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	if fatInfo != nil {
		fatInfo.Dirty = vol.BootDirty(v) // Close clears the bit this run set
	}
	if !c.Bool(cmdutil.FlagJSON) {
		switch {
		case write:
			for _, ch := range fatInfo.Changes {
				fmt.Fprintf(stdout, "%s: FSINFO %s: %s -> %s\n", spec, strings.ReplaceAll(ch.Field, "_", " "), hint(ch.Old), hint(ch.New))
			}
		case fatInfo != nil:
			fatInfo.print(stdout)
		default:
			exInfo.print(stdout)
		}
		if boot != nil {
			fmt.Fprintf(stdout, "boot sector (%d bytes):\n%s", len(boot), hex.Dump(boot))
		}
	}
	return cmdutil.Finish(c, stdout, stderr, info, dev.Stats, nil)
}

// changes lists the FSINFO fields that were set, with their old and new
// values.
func changes(old vol.FSInfo, now *vol.FSInfo, next, free bool) []change {
	var out []change
	if free {
		out = append(out, change{Field: "free_count", Old: old.FreeCount, New: now.FreeCount})
	}
	if next {
		out = append(out, change{Field: "next_cluster", Old: old.NextFree, New: now.NextFree})
	}
	return out
}
