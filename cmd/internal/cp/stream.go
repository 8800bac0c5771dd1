package cp

import (
	"github.com/ftools/ftools/cmd/internal/cmdutil"
	"github.com/ftools/ftools/pkg/vol"
)

// A copy of a large tree is planned and carried out in batches, so that
// its memory does not grow with the tree: the walk (plan) runs on a
// goroutine of its own and pauses every batchItems items; the batch is
// checked for room (checkRoom, in plan order, as for a whole plan) and
// carried out (Run), then the walk goes on. A tree of fewer items is
// planned whole by NewPlan, before anything is written, as before.
//
// Once the last source's walk is done with a destination directory,
// nothing more goes in it: its registry of names, the items that registry
// refers to and the directory's ends are let go when its itemDirDone is
// carried out, and chunks of items carried out are retired. Memory is then
// what the directories on the walk's way hold, not what the tree holds.
//
// A copy that reads and writes volumes (which may be the same one) is
// always planned whole: checkOverlap must know every file it reads before
// any is overwritten.

// batchItems is how many items a batch holds, at least.
const batchItems = itemChunk

// stream is the state of a plan made in batches.
type stream struct {
	walked  [][]end // the sources, as expanded (Bytes counts them)
	walking bool    // the last source's walk is under way (item.walk)
	checked int     // items checked for room (checkRoom)
	ran     int     // items carried out (Run)
	// retireFrom is the first chunk that may be retired: the last
	// source's (earlier sources' directories may take more names).
	retireFrom  int
	room        *vol.Room
	roomDropped map[int32]noRoom // directories not made for want of room
	roomHalt    bool             // -Q met a directory or file with no room

	co *walker // nil: the plan was made whole
}

// walker runs the walk on its goroutine, one batch at a time.
type walker struct {
	ready  chan bool // a batch is ready (false), or the walk ended (true)
	resume chan struct{}
	ended  bool
	err    error
	bytes  int64 // Bytes, counted once (-1: not yet)
	whole  bool  // the walk plans the copy whole (surelyFits)
}

// streams reports whether the copy of srcs to dst may be made in batches.
func (p *Plan) streams(srcs []cmdutil.Operand, dst cmdutil.Operand) bool {
	p.roomDropped = map[int32]noRoom{}
	if isStd(dst) {
		return false
	}
	for _, s := range srcs {
		if s.InImage() && dst.InImage() {
			return false
		}
	}
	return true
}

// startWalk starts the walk and waits for its first batch; a walk that
// ends before one is full is the whole plan.
func (p *Plan) startWalk(walk func() error) error {
	co := &walker{ready: make(chan bool), resume: make(chan struct{}), bytes: -1}
	p.co = co
	go func() {
		co.err = walk()
		co.ready <- true
	}()
	if co.ended = <-co.ready; co.ended {
		p.co = nil
		if co.err != nil {
			return co.err
		}
		p.planned()
		return nil
	}
	p.checkRoom()
	return nil
}

// pause hands a full batch over to Run (on the walk's goroutine).
func (p *Plan) pause() {
	if p.co == nil || p.co.whole || p.items.len()-p.checked < batchItems {
		return
	}
	p.co.ready <- false
	<-p.co.resume
}

// next resumes the walk for its next batch and checks it for room; false
// when the walk had ended.
func (p *Plan) next() bool {
	if p.co == nil || p.co.ended {
		return false
	}
	p.co.resume <- struct{}{}
	if p.co.ended = <-p.co.ready; p.co.ended {
		p.checkRoom()
		p.settleName()
		p.dirs, p.loose, p.lastDir = nil, nil, lastDir{}
		return true
	}
	p.checkRoom()
	return true
}

// release lets go, once item i is carried out, of what nothing refers to
// any more (see the top of this file).
func (p *Plan) release(i int) {
	it := p.items.at(i)
	if !it.walk {
		return
	}
	if it.closes {
		// The directory's registry goes, with the items it names (all
		// carried out: they come before this one), and so does its own
		// item when no registry names it.
		key := dirKey(p.end(it.dst))
		if d := p.dirs[key]; d != nil {
			for _, x := range d.names {
				if x >= 0 {
					p.drop(int(x))
				}
			}
			delete(p.dirs, key)
			if p.lastDir.d == d {
				p.lastDir = lastDir{}
			}
		}
		if mk := p.items.at(int(it.parent)); mk != nil && !mk.gone && !mk.named {
			p.drop(int(it.parent))
		}
	}
	if !it.named && it.kind != itemMkdir {
		p.items.free(i) // its ends are its directory's
	}
}

// drop lets item i go with the ends it owns: those it names whole (a
// directory's own, which the items inside it name too).
func (p *Plan) drop(i int) {
	it := p.items.at(i)
	if it == nil || it.gone {
		return
	}
	if it.src.name == "" {
		delete(p.ends, it.src.at)
	}
	if it.dst.name == "" {
		delete(p.ends, it.dst.at)
	}
	p.items.free(i)
}

// free lets item i go.
func (l *itemList) free(i int) {
	c := l.chunks[i/itemChunk]
	if c == nil {
		if k := l.kept(i); k != nil {
			*k = kept{gone: true}
			s := l.spill[i/itemChunk]
			if s.live--; s.live == 0 {
				l.spill[i/itemChunk] = nil
			}
		}
		return
	}
	c[i%itemChunk] = item{gone: true}
}

// retire lets go of the chunks whose items were all carried out, keeping
// those of their items still needed.
func (p *Plan) retire() {
	l := &p.items
	for c := p.retireFrom; (c+1)*itemChunk <= p.ran && c < len(l.chunks); c++ {
		if l.chunks[c] == nil {
			continue
		}
		n := 0
		for k := range l.chunks[c] {
			if !l.chunks[c][k].gone {
				n++
			}
		}
		if n > 0 {
			s := &spilled{at: make([]uint16, 0, n), kept: make([]kept, 0, n), live: n}
			for k := range l.chunks[c] {
				if it := &l.chunks[c][k]; !it.gone {
					s.at = append(s.at, uint16(k))
					s.kept = append(s.kept, keep(it))
				}
			}
			for len(l.spill) <= c {
				l.spill = append(l.spill, nil)
			}
			l.spill[c] = s
		}
		l.chunks[c] = nil
	}
}

// countBytes is how much file data the sources hold: the progress bar's
// total for a plan made in batches (what a rule leaves out still counts).
func (p *Plan) countBytes() int64 {
	var n int64
	var walk func(s end, e entry, up []fileID)
	walk = func(s end, e entry, up []fileID) {
		if e.kind == kindFile {
			n += max(e.size, 0)
			return
		}
		if e.kind != kindDir || !p.o.Recursive {
			return
		}
		for _, id := range up {
			if id == e.ident() && id != (fileID{}) {
				return
			}
		}
		ents, _ := s.side.list(s.path)
		for _, c := range ents {
			walk(s.child(c.name), c, append(up, e.ident()))
		}
	}
	for _, list := range p.walked {
		for _, s := range list {
			if e, err := s.side.stat(s.path, true); err == nil {
				walk(s, e, nil)
			}
		}
	}
	return n
}

// surelyFits reports whether the destination volume surely has room for
// everything the sources hold, so that no file or directory would be
// refused for want of room: only then is a copy into a volume made in
// batches, since the plan names every refusal for room before anything is
// written. It walks the sources holding counters (and the listing of the
// folders on its way): clusters for the files and for the new folders at
// their full size, and slots in each folder, as checkRoom counts them but
// never fewer. A copy that merges into a folder the volume holds, below
// DEST, or whose names must change, is planned whole instead. It counts
// Bytes on the way.
func (p *Plan) surelyFits(srcs []cmdutil.Operand, expanded [][]end, dst end, intoDir bool) bool {
	vs, ok := dst.side.(volSide)
	if !ok {
		return true
	}
	r := vol.NewRoom(vs.vol)
	margin := int64(0) // a name an autorename may lengthen: one slot more
	if p.o.Ask != nil || p.o.Policy.Primary == Autorename || p.o.Policy.Primary == Rename {
		margin = 1
	}
	var need, bytes int64
	slotsOf := func(name string) (int64, bool) {
		if fix := vs.storeName(name); fix.refusal != "" || fix.name != name {
			return 0, false
		}
		return int64(vol.EntrySlots(vs.vol, name)) + margin, true
	}
	fileFits := func(size int64) bool {
		if vol.FileSizeError(vs.vol, size) != nil {
			return false
		}
		need += r.Clusters(size)
		bytes += max(size, 0)
		return true
	}
	// dirFits counts a new folder of slots slots.
	dirFits := func(slots int64) bool {
		n, ok := vol.NewDirClusters(vs.vol, slots)
		need += n
		return ok
	}
	var walk func(s end, e entry, up []fileID) bool
	walk = func(s end, e entry, up []fileID) bool {
		for _, id := range up {
			if id == e.ident() && id != (fileID{}) {
				return true // a loop: skipped
			}
		}
		ents, _ := p.listDir(s)
		slots := int64(2)
		for _, c := range ents {
			if c.kind == kindSkip {
				continue
			}
			n, ok := slotsOf(c.name)
			if !ok {
				return false
			}
			slots += n
			switch {
			case c.kind == kindFile && !fileFits(c.size):
				return false
			case c.kind == kindDir && !walk(s.child(c.name), c, append(up, e.ident())):
				return false
			}
		}
		return dirFits(slots)
	}
	// top counts a source stored as name in the folder DEST names (or
	// holds): a folder that exists there is merged into, below DEST.
	var topSlots int64
	top := func(s end, e entry, name string, in end) bool {
		ex, err := vs.lookup(vs.join(in.path, name))
		if err != nil || (ex.exists && e.kind == kindDir) || e.stream {
			return false
		}
		n, ok := slotsOf(name)
		if !ok {
			return false
		}
		topSlots += n + 1
		if e.kind == kindFile {
			return fileFits(e.size)
		}
		return walk(s, e, nil)
	}
	in := dst
	if !intoDir {
		in = parentOf(dst)
	}
	// source counts one source, its folders listed ahead (listahead.go).
	source := func(op cmdutil.Operand, s end, e entry) bool {
		if p.ahead = aheadFor(s, e); p.ahead != nil {
			defer func() { p.ahead.stop(); p.ahead = nil }()
		}
		switch {
		case op.Contents && e.kind == kindDir && intoDir:
			ents, _ := p.listDir(s)
			for _, c := range ents {
				if c.kind != kindSkip && !top(s.child(c.name), c, c.name, in) {
					return false
				}
			}
			return true
		case intoDir:
			return top(s, e, s.side.base(s.path), in)
		}
		return top(s, e, dst.side.base(dst.path), in)
	}
	for i, op := range srcs {
		if isStd(op) {
			return false
		}
		for _, s := range expanded[i] {
			e, err := s.side.stat(s.path, true)
			if err != nil || e.kind == kindSkip || (e.kind == kindDir && !p.o.Recursive) {
				continue
			}
			if !source(op, s, e) {
				return false
			}
		}
	}
	// The folder DEST names (or holds) grows by what goes in it.
	grow, ok := r.Grows(in.path, topSlots)
	if !ok {
		return false
	}
	need += grow
	p.co.bytes = bytes
	return need <= r.Free()
}
