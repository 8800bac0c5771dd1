package vol

import (
	"io/fs"
	"testing"

	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
)

// The shared table of in-place updates (offsets within and across sectors
// and clusters, appends, growth past the file's run, gaps, truncation),
// on FAT16 and exFAT through the one API: each leaves the file as the
// model says, its neighbour untouched, the runs expected, and a volume
// Check calls clean.
func TestUpdaterWrites(t *testing.T) {
	for _, kind := range []string{"FAT16", "exFAT"} {
		t.Run(kind, func(t *testing.T) {
			var dev *fio.Device
			var v Volume
			start := func(t *testing.T, tc voltest.UpdateCase) FileUpdater {
				o := FormatOptions{Now: stamp}
				if kind == "exFAT" {
					dev = fio.NewMemDevice(8<<20, 512)
					o.ExFAT = &ExFATParams{ClusterSize: int64(tc.ClusterSize)}
				} else {
					dev = fio.NewMemDevice(16<<20, 512)
					o.FAT = &FATParams{Type: fat.FAT16, ClusterSize: tc.ClusterSize}
				}
				if _, err := Format(dev, o); err != nil {
					t.Fatal(err)
				}
				var err error
				if v, err = Open(dev); err != nil {
					t.Fatal(err)
				}
				if err := v.Mkdir("a", stamp); err != nil {
					t.Fatal(err)
				}
				// b.bin right after the file: growing it leaves its run.
				write(t, v, "a/f.bin", voltest.Pattern(tc.Size, 1))
				write(t, v, "b.bin", voltest.Pattern(3000, 2))
				v = voltest.Reopener(t, &v, func() (Volume, error) { return Open(dev) })()
				u, err := v.OpenFile("a/f.bin", tc.Flag)
				if err != nil {
					t.Fatal(err)
				}
				return u
			}
			done := func(t *testing.T) (fs.FS, []string, int) {
				if err := v.Close(); err != nil {
					t.Fatal(err)
				}
				rep, err := Check(dev, CheckOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var problems []string
				for _, p := range rep.Problems {
					problems = append(problems, p.String())
				}
				rep.Close()
				if v, err = Open(dev); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { v.Close() })
				fi, err := v.Stat("a/f.bin")
				if err != nil {
					t.Fatal(err)
				}
				runs, err := v.Runs(fi)
				if err != nil {
					t.Fatal(err)
				}
				return v, problems, runs
			}
			voltest.UpdateTable(t, start, done)
		})
	}
}
