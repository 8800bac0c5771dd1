package fat

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/ftools/ftools/pkg/internal/voltest"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/io/writelog"
)

// diskDirty reads the dirty bit as the device holds it.
func diskDirty(t *testing.T, dev *fio.Device) bool {
	t.Helper()
	return voltest.Boot(t, dev, DecodeBootSector).Dirty()
}

// The dirty bit is set at the session's first write, not when a change
// is asked for: refused changes write nothing at all, and a change that
// happens sets it before its metadata and clears it at Close.
func TestDirtyBitAtFirstWrite(t *testing.T) {
	for _, typ := range []Type{FAT16, FAT32} {
		t.Run(typ.String(), func(t *testing.T) {
			dev, v := formatMem(t, FormatParams{Size: 64 << 20, Type: typ, AllowSmallFAT32: true, ClusterSize: 4096}, time.Unix(0, 0))
			if err := v.MkdirAll("d/e", time.Unix(0, 0)); err != nil {
				t.Fatal(err)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			v, err := Open(dev)
			if err != nil {
				t.Fatal(err)
			}
			voltest.DirtyAtFirstWrite(t, v, AttrHidden, voltest.DirtyFlag{
				Name:  "the dirty bit",
				Dirty: func() bool { return diskDirty(t, dev) },
			})
		})
	}
}

// Setting the dirty bit writes nothing else of the boot sector: a new
// label reaches the boot sector only after the root directory's label
// entry, in its place in the commit (writeLabel). It used to go out with
// the dirty bit, before the entry.
func TestDirtyBitLeavesLabelInPlace(t *testing.T) {
	for _, typ := range []Type{FAT16, FAT32} {
		t.Run(typ.String(), func(t *testing.T) {
			dev, v := formatMem(t, FormatParams{Size: 64 << 20, Type: typ, AllowSmallFAT32: true, ClusterSize: 4096, Label: "OLDLABEL"}, time.Unix(0, 0))
			logPath := filepath.Join(t.TempDir(), "log")
			l, err := writelog.Create(logPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := dev.Record(l); err != nil {
				t.Fatal(err)
			}
			if err := v.SetLabel("NEWLABEL"); err != nil {
				t.Fatal(err)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			recs, err := writelog.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			entry := false // the root's label entry is written
			for _, r := range recs {
				if r.Kind != writelog.KindWrite {
					continue
				}
				if r.Off == 0 && bytes.Contains(r.Data, []byte("NEWLABEL")) && !entry {
					t.Fatal("the boot sector's new label is written before the root directory's label entry")
				}
				if r.Off != 0 && bytes.Contains(r.Data, []byte("NEWLABEL")) {
					entry = true
				}
			}
			if !entry {
				t.Fatal("no label entry written")
			}
		})
	}
}
