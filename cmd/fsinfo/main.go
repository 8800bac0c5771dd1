// Command fsinfo shows a FAT volume (boot sector, FSINFO, regions, free
// space) and sets FSINFO's next free cluster and free count.
package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
)

func main() { cmdutil.Main(run) }

func flags() []cli.Flag {
	fl := []cli.Flag{
		&cli.StringFlag{Name: "next-cluster", Usage: "set FSINFO's next free cluster hint to `N` (allocation starts after N)"},
		&cli.StringFlag{Name: "free-count", Usage: "set FSINFO's free cluster count to `N` (right or wrong)"},
		&cli.BoolFlag{Name: "recount", Usage: "count the free clusters in the FAT and write the true count (and a valid hint) to FSINFO"},
	}
	return cmdutil.VolumeFlags(true, fl...)
}

func run(args []string, stdout, stderr io.Writer) error {
	app := cmdutil.NewApp("fsinfo", "show a FAT volume; set FSINFO's next free cluster and free count",
		"fsinfo [flags] IMAGE[@@OFFSET]", stdout, stderr)
	app.Flags = flags()
	app.Action = func(c *cli.Context) error {
		if err := cmdutil.NeedArgs(c, 1, 1); err != nil {
			return err
		}
		return show(c, c.Args().First(), stdout, stderr)
	}
	return app.Run(args)
}

func parseCount(c *cli.Context, name string) (uint32, bool, error) {
	if !c.IsSet(name) {
		return 0, false, nil
	}
	s := c.String(name)
	n, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return 0, false, fmt.Errorf("--%s %q: want a number from 0 to 4294967295", name, s)
	}
	return uint32(n), true, nil
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
	v, err := fat.Open(dev)
	if err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	if recount {
		err = v.Recount()
	}
	if err == nil && setFree {
		err = v.SetFreeCount(free)
	}
	if err == nil && setNext {
		err = v.SetNextCluster(next)
	}
	if err != nil {
		v.Close()
		return fmt.Errorf("%s: %w", spec, err)
	}
	info := describe(v) // before Close: the FAT is valid until then
	if err := v.Close(); err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	if err := dev.Close(); err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	info.Dirty = v.BootSector().Dirty() // Close clears the bit this run set
	if c.Bool(cmdutil.FlagJSON) {
		if c.Bool(cmdutil.FlagStats) {
			st := dev.Stats()
			info.Stats = &st
		}
		return cmdutil.PrintJSON(stdout, info)
	}
	info.print(stdout)
	cmdutil.PrintStats(c, stderr, dev)
	return nil
}
