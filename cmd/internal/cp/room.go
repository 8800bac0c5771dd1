package cp

import (
	"fmt"

	"github.com/ftools/ftools/pkg/vol"
)

// The plan checks, before anything is written, that the volume it copies
// into has room for each file and directory: clusters for the data, and
// slots in the destination directory (the FAT12/16 root holds a fixed
// number; any other directory at most 65,536): vol.Room counts them. What does not
// fit is named and left out of the plan, in plan order, so the rest is
// copied as mcopy would copy it. The estimate never asks for more than the
// volume will really take (deleted slots are counted free, a directory
// grows by just what it needs), so nothing that would fit is refused; what
// turns out not to fit while writing (a directory whose free slots are
// scattered, a directory grown by more) is named then by Run. On exFAT
// only clusters are counted: its directories grow by whole clusters to
// 256 MiB, and what does not fit there is named by Run.

// checkRoom drops from the plan, naming each, the items the destination
// volume has no room for, among those added since it last ran.
func (p *Plan) checkRoom() {
	n := p.items.len()
	defer func() { p.checked = n }()
	for i := p.checked; i < n; i++ {
		it := p.items.at(i)
		// The destination's path only: its shown form is made for a
		// refusal (dropNoRoom).
		vs, ok := p.sideAt(it.dst).(volSide)
		var dst string
		if ok {
			dst = p.pathAt(it.dst)
		}
		if it.closes && it.walk && p.room != nil && ok {
			// Nothing more goes in this directory.
			p.room.Forget(dst)
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
			p.room = vol.NewRoom(vs.vol)
		}
		r := p.room
		var why string
		switch it.kind {
		case itemMkdir:
			if !it.exists {
				why = roomText(r.Add(dst, 0, true))
			}
		case itemFile:
			clusters := r.Clusters(it.size)
			if err := vol.FileSizeError(vs.vol, it.size); err != nil {
				// The format's limit, not the room, is what the user
				// must hear about: no FAT volume takes this file.
				why = errText(err)
			} else if it.exists {
				// The replaced file's clusters are freed only when the
				// copy commits: the new data needs room of its own, or
				// else (tight) the old file is emptied and committed
				// first, and the new one written into its clusters.
				why = roomText(r.Take(clusters))
				if why != "" && p.o.tightOK(it) {
					switch held := r.Held(dst); {
					case clusters <= r.Free()+held:
						it.tight = true
						r.Give(held)
						r.Take(clusters) // fits: checked above
						why = ""
					case held > 0:
						why += fmt.Sprintf(", and the file it replaces holds %d", held*vs.vol.ClusterSize())
					}
				}
			} else {
				why = roomText(r.Add(dst, it.size, false))
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

// roomText is why a member does not fit, "" when it does.
func roomText(err error) string {
	if err == nil {
		return ""
	}
	return errText(err)
}

// tightOK reports whether a file may be written into the clusters of the
// one it replaces: only when its size is known before it is read (not
// standard input or a stream, not a text conversion that changes it), so
// that it cannot outgrow them once the old file is gone.
func (o *Options) tightOK(it *item) bool {
	return !it.stdin && !it.stream && !o.Text
}
