package cmdutil

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"

	fio "github.com/ftools/ftools/pkg/io"
)

// FlagCache keeps host files in the page cache.
const FlagCache = "cache"

// CacheFlag is --cache, for commands that read or write host files.
func CacheFlag() cli.Flag {
	return &cli.BoolFlag{Name: FlagCache, Usage: "keep the host files read and written in the page cache (by default files of 1 MiB and more pass it without staying: RWF_DONTCACHE, or posix_fadvise where the kernel has not that)"}
}

// PageCache is what --stats says of the page cache: modes is how the host
// files passed it (fio.HostCacheModes), "" when none of 1 MiB or more was
// read or written.
func PageCache(c *cli.Context, modes string) string {
	if c.Bool(FlagCache) {
		return fio.CacheKept + " (--cache)"
	}
	return modes
}

// HostStdout is standard output for a command that writes a file's data
// there: a regular file (fcat ::/F > FILE) is written through the page
// cache without staying in it, as fio.HostFile writes, unless keep. done
// lets its last pages go and says how it passed the cache ("" when it
// was not a regular file of 1 MiB or more).
func HostStdout(stdout io.Writer, keep bool) (w io.Writer, done func() string) {
	cw, ok := stdout.(*countingWriter)
	if !ok {
		return stdout, func() string { return "" }
	}
	f, ok := cw.w.(*os.File)
	if !ok {
		return stdout, func() string { return "" }
	}
	h := fio.NewHostFile(f, -1, keep)
	cw.w = h
	return stdout, func() string {
		h.Done()
		return h.Mode()
	}
}
