package vol

import (
	"io/fs"
	"time"

	"github.com/ftools/ftools/pkg/exfat"
)

// ExFAT is an exFAT volume as a Volume: every method the two packages
// share comes from *exfat.Volume itself.
type ExFAT struct{ *exfat.Volume }

var _ Volume = ExFAT{}

func (v ExFAT) Type() string { return "exFAT" }

func (v ExFAT) Entry(fi fs.FileInfo) Entry {
	r, _ := fi.Sys().(*exfat.Record)
	if r == nil {
		return Entry{Name: fi.Name(), Attr: AttrDirectory, Root: true}
	}
	return Entry{Name: r.Name, Attr: Attr(r.Set.File.Attr), FirstCluster: uint32(r.Set.Stream.FirstCluster)}
}

func (v ExFAT) Runs(fi fs.FileInfo) (int, error) {
	r, _ := fi.Sys().(*exfat.Record)
	exts, err := v.RecordExtents(r)
	if err != nil {
		return 0, err
	}
	n := 0
	for i, e := range exts {
		if i == 0 || e.Start != exts[i-1].End() {
			n++
		}
	}
	return n, nil
}

func (v ExFAT) FileClusters(fi fs.FileInfo) (int64, error) {
	r, _ := fi.Sys().(*exfat.Record)
	exts, err := v.RecordExtents(r)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range exts {
		n += int64(e.Len)
	}
	return n, nil
}

func (v ExFAT) Create(name string, sizeHint int64, mtime time.Time) (Writer, error) {
	w, err := v.Volume.Create(name, sizeHint, mtime)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return w, nil
}

func (v ExFAT) SetAttr(name string, set, clear Attr) error {
	return v.Volume.SetAttr(name, exfat.Attr(set), exfat.Attr(clear))
}

func (v ExFAT) Fallocate(name string, length int64, o FallocateOptions) (*FallocateResult, error) {
	res, err := v.Volume.Fallocate(name, length, exfat.FallocateOptions{KeepSize: o.KeepSize, NoZero: o.NoZero})
	if err != nil {
		return nil, err
	}
	out := &FallocateResult{Size: res.Size, Created: res.Created}
	for _, e := range res.Extents {
		out.Runs = append(out.Runs, Run{uint32(e.Start), e.Len})
	}
	return out, nil
}

func (v ExFAT) Serial() uint32                { return v.BootSector().SerialNumber }
func (v ExFAT) ClusterSize() int64            { return v.Layout().ClusterSize }
func (v ExFAT) ClusterOffset(c uint32) int64  { return v.Layout().ClusterOffset(exfat.Cluster(c)) }
func (v ExFAT) Clusters() uint32              { return v.Layout().Clusters }
func (v ExFAT) SetClock(now func() time.Time) { v.Clock = now }

// MaxFileSize is exFAT's limit; the volume's heap is the tighter one.
func (v ExFAT) MaxFileSize() int64 {
	return min(int64(exfat.MaxFileSize), int64(v.Clusters())*v.ClusterSize())
}
