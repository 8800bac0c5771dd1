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
// volume has no room for.
func (p *Plan) checkRoom() {
	var r *vol.Room
	for i := 0; i < p.items.len(); i++ {
		it := p.items.at(i)
		if it.stdout || it.kind == itemNone || it.kind == itemDirDone {
			continue
		}
		dst := p.end(it.dst)
		vs, ok := dst.side.(volSide)
		if !ok {
			continue
		}
		if r == nil {
			r = vol.NewRoom(vs.vol)
		}
		var why string
		switch it.kind {
		case itemMkdir:
			if !it.exists {
				why = roomText(r.Add(dst.path, 0, true))
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
					switch held := r.Held(dst.path); {
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
				why = roomText(r.Add(dst.path, it.size, false))
			}
		}
		if why == "" {
			continue
		}
		p.dropNoRoom(i, why)
		if p.halted {
			for j := i + 1; j < p.items.len(); j++ {
				p.dropItem(j)
			}
			return
		}
	}
}

// dropNoRoom names item i (and, for a directory, everything planned inside
// it) as not copied for want of room, and takes it out of the plan.
func (p *Plan) dropNoRoom(i int, why string) {
	it := p.items.at(i)
	src, dst := p.ends2(it)
	switch it.kind {
	case itemMkdir:
		p.problemLine(true, src.show, why, fmt.Sprintf("cannot create directory %s: %s", quote(dst.show), why))
		end := p.dirEnd(i)
		for j := i + 1; j < end; j++ {
			if jt := p.items.at(j); jt.kind == itemFile || jt.kind == itemMkdir {
				show := p.end(jt.src).show
				p.problemLine(true, show, "directory "+quote(dst.show)+" was not created: "+why,
					fmt.Sprintf("cannot copy %s: directory %s was not created", quote(show), quote(dst.show)))
			}
			p.dropItem(j)
		}
		p.dropItem(i)
	default:
		p.problemLine(true, src.show, why, fmt.Sprintf("cannot copy %s to %s: %s", quote(src.show), quote(dst.show), why))
		p.dropItem(i)
	}
}

// dirEnd is the index after the last item inside the directory item i
// makes (its itemDirDone, which the walk adds after everything in it).
func (p *Plan) dirEnd(i int) int {
	for j := i + 1; j < p.items.len(); j++ {
		if jt := p.items.at(j); jt.kind == itemDirDone && int(jt.parent) == i {
			return j + 1
		}
	}
	return p.items.len()
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
