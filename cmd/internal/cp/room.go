package cp

import (
	"fmt"
	"path"
	"unicode/utf16"

	"github.com/ftools/ftools/pkg/fat"
	"github.com/ftools/ftools/pkg/vol"
)

// The plan checks, before anything is written, that the volume it copies
// into has room for each file and directory: clusters for the data, and
// slots in the destination directory (the FAT12/16 root holds a fixed
// number; any other directory at most fat.MaxDirEntries). What does not
// fit is named and left out of the plan, in plan order, so the rest is
// copied as mcopy would copy it. The estimate never asks for more than the
// volume will really take (deleted slots are counted free, a directory
// grows by just what it needs), so nothing that would fit is refused; what
// turns out not to fit while writing (a directory whose free slots are
// scattered, a directory grown by more) is named then by Run. On exFAT
// only clusters are counted: its directories grow by whole clusters to
// 256 MiB, and what does not fit there is named by Run.

// roomPlan is what the destination volume has left as the plan uses it up.
type roomPlan struct {
	vs    volSide
	fv    *fat.Volume // nil on exFAT: clusters only
	cs    int64       // cluster size
	free  int64       // clusters
	dirs  map[string]*dirRoom
	names *fat.ShortNameSet // scratch, for MakeShortName
}

// dirRoom is one destination directory's slots.
type dirRoom struct {
	used  int64 // slots taken: live records, the label, "." and ".."
	alloc int64 // slots its clusters hold (the fixed root: all it can hold)
	fixed string
}

// checkRoom drops from the plan, naming each, the items the destination
// volume has no room for, among those added since it last ran.
func (p *Plan) checkRoom() {
	n := p.items.len()
	defer func() { p.checked = n }()
	for i := p.checked; i < n; i++ {
		it := p.items.at(i)
		dst := p.end(it.dst)
		vs, ok := dst.side.(volSide)
		if it.closes && it.walk && p.room != nil && ok {
			// Nothing more goes in this directory.
			delete(p.room.dirs, fat.FoldName(path.Clean(dst.path)))
		}
		if d, ok := p.roomDropped[it.parent]; ok && it.parent >= 0 {
			p.dropInside(i, d)
			continue
		}
		if p.roomHalt {
			p.dropItem(i)
			continue
		}
		if it.stdout || it.kind == itemNone || it.kind == itemDirDone || !ok {
			continue
		}
		if p.room == nil {
			p.room = newRoomPlan(vs)
		}
		r := p.room
		var why string
		switch it.kind {
		case itemMkdir:
			if !it.exists {
				why = r.add(dst.path, 1, true)
			}
		case itemFile:
			clusters := (max(it.size, 0) + r.cs - 1) / r.cs
			if r.fv != nil && it.size > fat.MaxFileSize {
				// The format's limit, not the room, is what the user
				// must hear about: no FAT volume takes this file.
				why = errText(fat.ErrFileTooLarge)
			} else if it.exists {
				// The replaced file's clusters are freed only when the
				// copy commits: the new data needs room of its own, or
				// else (tight) the old file is emptied and committed
				// first, and the new one written into its clusters.
				why = r.take(clusters)
				if why != "" && p.o.tightOK(it) {
					switch held := r.held(dst.path); {
					case clusters <= r.free+held:
						it.tight = true
						r.free += held - clusters
						why = ""
					case held > 0:
						why += fmt.Sprintf(", and the file it replaces holds %d", held*r.cs)
					}
				}
			} else {
				why = r.add(dst.path, clusters, false)
			}
		}
		if why == "" {
			continue
		}
		p.dropNoRoom(i, why)
		// -Q: nothing after it is copied but what it holds, which is named.
		p.roomHalt = p.halted
	}
}

// noRoom is a directory not made for want of room.
type noRoom struct{ show, why string }

// dropNoRoom names item i as not copied for want of room, and takes it
// out of the plan; everything planned inside a directory is dropped with
// it (dropInside).
func (p *Plan) dropNoRoom(i int, why string) {
	it := p.items.at(i)
	src, dst := p.ends2(it)
	switch it.kind {
	case itemMkdir:
		p.problemLine(true, src.show, why, fmt.Sprintf("cannot create directory %s: %s", quote(dst.show), why))
		p.roomDropped[int32(i)] = noRoom{dst.show, why}
	default:
		p.problemLine(true, src.show, why, fmt.Sprintf("cannot copy %s to %s: %s", quote(src.show), quote(dst.show), why))
	}
	p.dropItem(i)
}

// dropInside names item i, planned inside directory d that was not made
// for want of room, and takes it out of the plan.
func (p *Plan) dropInside(i int, d noRoom) {
	it := p.items.at(i)
	switch {
	case it.closes:
		delete(p.roomDropped, it.parent)
	case it.kind == itemFile || it.kind == itemMkdir:
		show := p.end(it.src).show
		p.problemLine(true, show, "directory "+quote(d.show)+" was not created: "+d.why,
			fmt.Sprintf("cannot copy %s: directory %s was not created", quote(show), quote(d.show)))
		if it.kind == itemMkdir {
			p.roomDropped[int32(i)] = d
		}
	}
	p.dropItem(i)
}

func (p *Plan) dropItem(j int) {
	it := p.items.at(j)
	if it.kind == itemFile {
		p.bytes -= it.size
	}
	it.kind = itemNone
}

func newRoomPlan(vs volSide) *roomPlan {
	return &roomPlan{vs: vs, fv: vol.AsFAT(vs.vol), cs: vs.vol.ClusterSize(), free: int64(vs.vol.FreeClusters()), dirs: map[string]*dirRoom{}, names: fat.NewShortNameSet()}
}

// take uses n clusters, or says why the volume cannot give them.
func (r *roomPlan) take(n int64) string {
	if n > r.free {
		return errText(&fat.NoSpaceError{Need: n * r.cs, Free: r.free * r.cs})
	}
	r.free -= n
	return ""
}

// held is how many clusters the volume file at p holds (0 when that
// cannot be told: no room is counted that might not be there).
func (r *roomPlan) held(p string) int64 {
	fi, err := r.vs.vol.Stat(p)
	if err != nil {
		return 0
	}
	n, err := r.vs.vol.FileClusters(fi)
	if err != nil {
		return 0
	}
	return n
}

// tightOK reports whether a file may be written into the clusters of the
// one it replaces: only when its size is known before it is read (not
// standard input or a stream, not a text conversion that changes it), so
// that it cannot outgrow them once the old file is gone.
func (o *Options) tightOK(it *item) bool {
	return !it.stdin && !it.stream && !o.Text
}

// add stores a new member at p, a file of clusters clusters or (isDir) a
// directory of one, or says why it does not fit.
func (r *roomPlan) add(p string, clusters int64, isDir bool) string {
	if r.fv == nil {
		return r.take(clusters)
	}
	d := r.dir(path.Dir(p))
	n := r.slots(path.Base(p))
	perCluster := r.cs / fat.DirEntrySize
	var grow int64
	switch {
	case d.fixed != "" && d.used+n > d.alloc:
		return d.fixed
	case d.used+n > fat.MaxDirEntries:
		return "directory is full: " + fat.DirLimit
	case d.used+n > d.alloc:
		grow = (d.used + n - d.alloc + perCluster - 1) / perCluster
	}
	if why := r.take(clusters + grow); why != "" {
		return why
	}
	d.used += n
	d.alloc += grow * perCluster
	if isDir {
		r.dirs[fat.FoldName(p)] = &dirRoom{used: 2, alloc: perCluster}
	}
	return ""
}

// slots is how many directory slots a new member named name takes: its
// short entry and, when the name is not a plain 8.3 name, its long name.
func (r *roomPlan) slots(name string) int64 {
	info, err := fat.MakeShortName(name, r.names)
	if err != nil || !info.NeedLong {
		return 1
	}
	units := int64(len(utf16.Encode([]rune(name))))
	return 1 + (units+12)/13
}

// dir is what the plan knows of directory p: what the volume holds there,
// read once, then what the plan has added.
func (r *roomPlan) dir(p string) *dirRoom {
	key := fat.FoldName(path.Clean(p))
	if d := r.dirs[key]; d != nil {
		return d
	}
	d := &dirRoom{}
	r.dirs[key] = d
	v := r.fv
	l := v.Layout()
	perCluster := l.ClusterSize / fat.DirEntrySize
	var first fat.Cluster
	if fi, err := v.Stat(p); err == nil {
		if rec, ok := fi.Sys().(*fat.Record); ok && rec != nil {
			first = rec.Entry.Cluster
		}
	}
	switch {
	case first == 0 && l.Type != fat.FAT32:
		d.alloc = l.RootDirSize / fat.DirEntrySize
		d.fixed = fmt.Sprintf("directory is full: the %s root directory holds at most %d entries", l.Type, d.alloc)
	case first == 0:
		first = l.RootCluster
		fallthrough
	default:
		if chain, err := fat.Chain(v.Table(), first); err == nil {
			d.alloc = int64(len(chain)) * perCluster
		}
	}
	if first != 0 && first != l.RootCluster {
		d.used = 2 // "." and ".."
	}
	if first == 0 || first == l.RootCluster {
		if _, ok, err := v.RootLabel(); err == nil && ok {
			d.used++
		}
	}
	if ents, err := v.ReadDir(p); err == nil {
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				if rec, ok := fi.Sys().(*fat.Record); ok && rec != nil {
					d.used += int64(rec.Slots)
				}
			}
		}
	}
	if d.alloc < d.used {
		d.alloc = d.used
	}
	return d
}
