package vol

import (
	"io/fs"
	"time"

	"github.com/ftools/ftools/pkg/fat"
)

// FAT is a FAT12/16/32 volume as a Volume: every method the two packages
// share comes from *fat.Volume itself.
type FAT struct{ *fat.Volume }

var _ Volume = FAT{}

func (v FAT) Type() string { return v.Layout().Type.String() }

func (v FAT) Entry(fi fs.FileInfo) Entry {
	r, _ := fi.Sys().(*fat.Record)
	if r == nil {
		return Entry{Name: fi.Name(), Attr: AttrDirectory, Root: true}
	}
	return Entry{Name: r.Name, ShortName: r.Short.String(), Attr: Attr(r.Entry.Attr), FirstCluster: uint32(r.Entry.Cluster)}
}

func (v FAT) Runs(fi fs.FileInfo) (int, error) {
	r, _ := fi.Sys().(*fat.Record)
	if r == nil || r.Entry.Cluster == 0 {
		return 0, nil
	}
	chain, err := fat.Chain(v.Table(), r.Entry.Cluster)
	if err != nil {
		return 0, err
	}
	n := 0
	for i, c := range chain {
		if i == 0 || c != chain[i-1]+1 {
			n++
		}
	}
	return n, nil
}

func (v FAT) FileClusters(fi fs.FileInfo) (int64, error) {
	r, _ := fi.Sys().(*fat.Record)
	if r == nil || r.Entry.Cluster == 0 {
		return 0, nil
	}
	exts, err := fat.ChainExtents(v.Table(), r.Entry.Cluster)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range exts {
		n += int64(e.Len)
	}
	return n, nil
}

func (v FAT) FoldName(name string) string { return fat.FoldName(name) }

func (v FAT) Create(name string, sizeHint int64, mtime time.Time) (Writer, error) {
	w, err := v.Volume.Create(name, sizeHint, mtime)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return w, nil
}

func (v FAT) SetAttr(name string, set, clear Attr) error {
	return v.Volume.SetAttr(name, fatAttr(set), fatAttr(clear))
}

// fatAttr converts attribute bits; bits FAT has not (none of Attr's) are
// kept out of the byte so SetAttr refuses them as it refuses others.
func fatAttr(a Attr) fat.Attr {
	if a > 0xFF {
		a = a&0xFF | 0x80 // a bit SetAttr refuses
	}
	return fat.Attr(a)
}

func (v FAT) Fallocate(name string, length int64, o FallocateOptions) (*FallocateResult, error) {
	res, err := v.Volume.Fallocate(name, length, fat.FallocateOptions{KeepSize: o.KeepSize, NoZero: o.NoZero})
	if err != nil {
		return nil, err
	}
	out := &FallocateResult{Size: res.Size, Created: res.Created}
	for _, e := range res.Extents {
		out.Runs = append(out.Runs, Run{uint32(e.Start), e.Len})
	}
	return out, nil
}

func (v FAT) Serial() uint32                { return v.BootSector().VolumeID }
func (v FAT) SetSerial(serial uint32) error { return v.SetVolumeID(serial) }
func (v FAT) ClusterSize() int64            { return v.Layout().ClusterSize }
func (v FAT) ClusterOffset(c uint32) int64  { return v.Layout().ClusterOffset(fat.Cluster(c)) }
func (v FAT) Clusters() uint32              { return v.Layout().Clusters }
func (v FAT) MaxFileSize() int64            { return fat.MaxFileSize }
func (v FAT) SetClock(now func() time.Time) { v.Clock = now }
