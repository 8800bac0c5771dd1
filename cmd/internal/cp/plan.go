package cp

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// itemKind is one step of a plan.
type itemKind uint8

const (
	itemNone    itemKind = iota // dropped after planning
	itemMkdir                   // a directory (merged when it exists)
	itemFile                    // a file
	itemDirDone                 // a directory's contents are done: set its time
)

// item is one step of a plan. A plan of a million files holds a million
// items, so an item is small: its source and destination are a name in a
// directory the plan registered once (ref), not two full paths each.
type item struct {
	kind   itemKind
	exists bool // the destination exists: a directory merged, a file replaced
	stdin  bool
	stream bool // a FIFO or character device: read to its end, size unknown
	stdout bool
	// tight: the file fits only in the clusters of the volume file it
	// replaces, which is emptied (and committed) before it is written.
	tight bool
	// named: a directory's registry of names refers to the item (it is
	// kept until that directory is done); gone: let go (stream.go); walk:
	// planned by the last source's walk, after which nothing more goes
	// in a directory that is done.
	// closes: the itemDirDone of its directory (kept when dropped).
	named, gone, walk, closes bool
	over                      uint32 // a replaced volume file's first cluster
	parent                    int32  // the item that makes the directory this one goes in (-1: none)
	ahead                     int32  // the file's place in its volume's read-ahead (-1: none)
	size                      int64
	mtime                     stamp
	src                       ref
	dst                       ref
}

// stamp is a modification time in 12 bytes (time.Time takes 24).
type stamp struct {
	sec  int64
	nsec int32
}

func stampOf(t time.Time) stamp { return stamp{t.Unix(), int32(t.Nanosecond())} }
func (s stamp) t() time.Time    { return time.Unix(s.sec, int64(s.nsec)) }

// itemList holds a plan's items in chunks: a million of them grow without
// a slice's copy to a larger array, which would hold both at once. A
// chunk whose items were all carried out is retired (stream.go): the few
// items still needed move to spill, and the chunk is let go.
type itemList struct {
	chunks [][]item
	spill  []*spilled // by chunk: what a retired chunk keeps; nil for none
	n      int
}

// spilled is what one retired chunk keeps: its items still needed, in one
// array, found by their places in the chunk (ascending). An item took an
// allocation of its own and a map entry (some 72 bytes, not 50).
type spilled struct {
	at   []uint16
	kept []kept
	live int // items not let go yet: at 0 the chunk's spill goes
}

// kept is a retired item still needed: a directory's, or one that the
// registry of its directory's names refers to, all of a folder's files
// until the folder is done. It holds what those read (the ends and the
// kind), in half an item: a folder of 60,000 files keeps 60,000 of them.
type kept struct {
	srcAt, dstAt     int32
	srcName, dstName string
	kind             itemKind
	named            bool
	gone             bool // let go (itemList.free)
}

func keep(it *item) kept {
	return kept{srcAt: it.src.at, dstAt: it.dst.at, srcName: it.src.name, dstName: it.dst.name, kind: it.kind, named: it.named}
}

// item is the retired item as at returns it: a copy, whose changes are
// not kept (a retired item only goes: itemList.free).
func (k *kept) item() *item {
	return &item{kind: k.kind, named: k.named, src: ref{k.srcAt, k.srcName}, dst: ref{k.dstAt, k.dstName}, parent: -1, ahead: -1}
}

const itemChunk = 4096

func (l *itemList) len() int { return l.n }
func (l *itemList) at(i int) *item {
	if c := l.chunks[i/itemChunk]; c != nil {
		return &c[i%itemChunk]
	}
	if k := l.kept(i); k != nil {
		return k.item()
	}
	return nil
}

// kept is what the retired chunk of item i keeps of it, nil if nothing.
func (l *itemList) kept(i int) *kept {
	c := i / itemChunk
	if c >= len(l.spill) || l.spill[c] == nil {
		return nil
	}
	s := l.spill[c]
	j, ok := slices.BinarySearch(s.at, uint16(i%itemChunk))
	if !ok || s.kept[j].gone {
		return nil
	}
	return &s.kept[j]
}

// add appends an item to the plan.
func (p *Plan) add(it item) {
	it.walk = p.walking
	p.items.add(it)
}

func (l *itemList) add(it item) {
	if l.n%itemChunk == 0 {
		l.chunks = append(l.chunks, make([]item, 0, itemChunk))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, it)
	l.n++
}

// ref is an end the plan holds as name inside the registered end at (the
// end itself when name is "").
type ref struct {
	at   int32
	name string
}

// register keeps e for refs to it and to names inside it.
func (p *Plan) register(e end) int32 {
	p.endN++
	p.ends[p.endN] = e
	return p.endN
}

// whole is a ref to e itself.
func (p *Plan) whole(e end) ref { return ref{at: p.register(e)} }

// end is the end r names.
func (p *Plan) end(r ref) end {
	e := p.ends[r.at]
	if r.name == "" {
		return e
	}
	return e.child(r.name)
}

// sideAt is the side of the end r names, and pathAt its path: each
// without the rest of the end (a child's shown path, one join more).
func (p *Plan) sideAt(r ref) side { return p.ends[r.at].side }

func (p *Plan) pathAt(r ref) string {
	e := p.ends[r.at]
	if r.name == "" {
		return e.path
	}
	return e.side.join(e.path, r.name)
}

// ends are an item's source and destination.
func (p *Plan) ends2(it *item) (src, dst end) { return p.end(it.src), p.end(it.dst) }

// Plan is a copy worked out before anything is written: every source
// walked, every name checked, every clash settled, every skip named.
type Plan struct {
	o     Options
	items itemList
	ends  map[int32]end // what items' refs name: directories, operands
	endN  int32
	res   Result
	bytes int64
	// halted: -Q met a problem; the plan ends there.
	halted bool
	// newDirOnly: DEST does not exist and ends in a slash: only a
	// directory can be copied as it (cp: "Not a directory" for a file).
	newDirOnly bool

	dirs     map[string]*dirNames
	sources  map[string]map[uint32]bool // volume source files' first clusters, by side
	toVolume bool                       // the destination is inside an image
	pending  *pendingName               // the name place settled last (registry.go)
	loose    []planned                  // names taken by no item (registry.go)
	asked    Policy                     // answers given "for all" (capital letters)
	images   map[fileID]bool            // the image files' device and inode (hostSide.images)
	lastDir  lastDir                    // dirState's last answer
	ahead    *listAhead                 // lists the host source walked ahead (listahead.go)
	// selfListed counts the folders the walk listed itself (tests).
	selfListed int

	stream // planning in batches, carried out as they come (stream.go)
}

// ErrStopped ends a copy that -Q stopped at its first problem.
var ErrStopped = errors.New("stopped at the first file not copied (-Q)")

// NewPlan plans copying srcs to dst with cp's rules: into dst when it is a
// directory (or ends in a slash, or there are several sources, a pattern
// that matches several files included), else as dst. vols holds the open volume of every image the operands name. An
// error means nothing can be copied at all (dst is not a directory, a
// missing parent without -r, "-" misused); a source that cannot be copied
// is a problem in the plan's result instead.
func NewPlan(srcs []cmdutil.Operand, dst cmdutil.Operand, vols map[string]vol.Volume, o Options) (*Plan, error) {
	if o.IOSize <= 0 {
		o.IOSize = 4 << 20
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	o.Hints = o.Hints.withDefaults()
	p := &Plan{o: o, dirs: map[string]*dirNames{}, sources: map[string]map[uint32]bool{}, ends: map[int32]end{}, images: imageIDs(vols)}
	if !p.streams(srcs, dst) {
		if err := p.plan(srcs, dst, vols); err != nil {
			return nil, err
		}
		p.planned()
		return p, nil
	}
	return p, p.startWalk(func() error { return p.plan(srcs, dst, vols) })
}

// imageIDs are the device and inode of the image files vols are in.
func imageIDs(vols map[string]vol.Volume) map[fileID]bool {
	ids := map[fileID]bool{}
	for spec := range vols {
		name, _, err := fio.ParseImageSpec(spec)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(name); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				ids[fileID{uint64(st.Dev), st.Ino}] = true
			}
		}
	}
	return ids
}

// planned ends a plan whose walk is over: the last checks on what it
// added, then the names each destination directory takes are settled:
// only the plan's items are needed from here on.
func (p *Plan) planned() {
	p.checkOverlap()
	p.checkRoom()
	p.settleName()
	p.dirs, p.loose, p.lastDir = nil, nil, lastDir{}
}

// Bytes is how much file data the plan copies (made in batches: the
// sources hold, counted by a walk of its own).
func (p *Plan) Bytes() int64 {
	if p.co == nil {
		return p.bytes
	}
	if p.co.bytes < 0 {
		p.co.bytes = p.countBytes()
	}
	return p.co.bytes
}

// SetProgress sets the callback told of the bytes copied (for a progress
// bar sized by Bytes).
func (p *Plan) SetProgress(fn func(n int64)) { p.o.Progress = fn }

func isStd(op cmdutil.Operand) bool { return !op.InImage() && op.Raw == "-" }

func (p *Plan) sideOf(op cmdutil.Operand, vols map[string]vol.Volume) side {
	if op.InImage() {
		return volSide{vol: vols[op.Image], spec: op.Image, preserve: p.o.Preserve}
	}
	return hostSide{follow: p.o.Follow, preserve: p.o.Preserve, cache: p.o.Cache, hints: &p.o.Hints, images: p.images}
}

func (p *Plan) plan(srcs []cmdutil.Operand, dstOp cmdutil.Operand, vols map[string]vol.Volume) error {
	anyImage := dstOp.InImage()
	for _, s := range srcs {
		anyImage = anyImage || s.InImage()
		if isStd(s) && len(srcs) > 1 {
			return errors.New("'-' (standard input) must be the only SOURCE")
		}
	}
	if !anyImage {
		return errors.New("neither a SOURCE nor DEST is inside an image (write ::/path with -i IMAGE, or IMAGE::/path); use cp for host copies")
	}
	if isStd(dstOp) {
		return p.planStdout(srcs, vols)
	}
	dside := p.sideOf(dstOp, vols)
	p.toVolume = dstOp.InImage()
	dpath := dstOp.Path
	if !dstOp.InImage() {
		h := dside.(hostSide)
		h.top = filepath.Clean(dstOp.Path)
		dside = h
	} else {
		dpath = cmdutil.LiteralPath(dstOp)
	}
	dst := end{dside, dpath, dstOp.Show(dpath)}
	if !dstOp.InImage() {
		dst.show = dstOp.Raw
	}
	ex, err := dside.lookup(dst.path)
	if err != nil {
		return fmt.Errorf("cannot use %s: %s", quote(dst.show), errText(err))
	}
	// Patterns are expanded first: a pattern that names several files is
	// several sources, as the shell's expansion is to cp (a pattern that
	// matches nothing still counts as one, as the shell leaves it).
	expanded := make([][]end, len(srcs))
	several := len(srcs) > 1
	for i, op := range srcs {
		if !isStd(op) {
			expanded[i] = p.expand(op, vols)
			several = several || len(expanded[i]) > 1
		}
	}
	// cp's rules: DEST receives the sources under their own names when it
	// is a directory that exists; a DEST that does not exist names the copy
	// of its one source (a trailing slash then asks that the source be a
	// directory), and is never made as a folder for several sources. Its
	// parent must exist: no missing directory is made (cp makes none).
	intoDir := ex.exists && ex.dir
	if ex.exists && !ex.dir && (several || dstOp.Slash) {
		return fmt.Errorf("target %s is not a directory", quote(dst.show))
	}
	if !ex.exists && several {
		return fmt.Errorf("target %s is not a directory: it does not exist", quote(dst.show))
	}
	if len(srcs) == 1 && isStd(srcs[0]) && (intoDir || dstOp.Slash) {
		return fmt.Errorf("standard input has no name: give DEST as the file to write (such as %s)", quote(dst.side.join(dst.show, "NAME")))
	}
	if !ex.exists {
		parent := parentOf(dst)
		pex, err := dside.lookup(parent.path)
		if err != nil {
			return fmt.Errorf("cannot use %s: %s", quote(parent.show), errText(err))
		}
		switch {
		case !pex.exists:
			return fmt.Errorf("cannot create %s: directory %s does not exist", quote(dst.show), quote(parent.show))
		case !pex.dir:
			return fmt.Errorf("cannot create %s: %s is not a directory", quote(dst.show), quote(parent.show))
		}
		p.newDirOnly = dstOp.Slash
	}
	p.walked = expanded
	if p.co != nil && p.toVolume && !p.surelyFits(srcs, expanded, dst, intoDir) {
		p.co.whole = true
	}
	for i, op := range srcs {
		if p.halted {
			break
		}
		if isStd(op) {
			p.planStdin(dst)
			continue
		}
		for k, s := range expanded[i] {
			if p.halted {
				break
			}
			p.pause()
			// Nothing more goes in a directory the last source's walk is
			// done with: it is let go.
			p.walking = i == len(srcs)-1 && k == len(expanded[i])-1
			if p.walking {
				p.retireFrom = p.items.len() / itemChunk
			}
			p.planSource(s, op.Contents, dst, intoDir)
		}
	}
	return nil
}

// parentOf is the directory holding e.
func parentOf(e end) end {
	if _, ok := e.side.(volSide); ok {
		show := e.show
		if i := strings.Index(show, "::"); i >= 0 {
			show = show[:i+2] + path.Dir(path.Clean("/"+show[i+2:]))
		}
		return end{e.side, path.Dir(e.path), show}
	}
	// A host DEST keeps the slash it was given ("new/"): its parent is
	// the folder holding new, not new.
	return end{e.side, filepath.Dir(filepath.Clean(e.path)), filepath.Dir(filepath.Clean(e.show))}
}

// expand lists what one source operand names; problems are recorded.
func (p *Plan) expand(op cmdutil.Operand, vols map[string]vol.Volume) []end {
	s := p.sideOf(op, vols)
	vs, ok := s.(volSide)
	if !ok {
		return []end{{s, op.Path, op.Raw}}
	}
	ends, skipped, err := expand(op, vs)
	for _, pr := range skipped {
		p.problem(false, pr.Path, pr.Reason)
	}
	if err != nil {
		p.problemLine(true, op.Raw, strings.TrimPrefix(err.Error(), "no match for "+quote(op.Raw)), line(err.Error()))
	}
	return ends
}

// planStdin plans standard input into the file dst names.
func (p *Plan) planStdin(dst end) {
	src := end{hostSide{}, "-", "-"}
	name := dst.side.base(dst.path)
	t, ex, ok := p.place(parentOf(dst), src, entry{name: name, kind: kindFile, size: -1, mtime: stampOf(cmdutil.Now())}, name)
	if !ok {
		return
	}
	p.add(item{kind: itemFile, src: p.whole(src), dst: p.whole(t), size: 0, mtime: stampOf(cmdutil.Now()), exists: ex.exists, over: ex.first, parent: -1, ahead: -1, stdin: true})
	p.claim()
}

// planStdout plans image files to standard output, one after another.
func (p *Plan) planStdout(srcs []cmdutil.Operand, vols map[string]vol.Volume) error {
	for _, op := range srcs {
		if !op.InImage() {
			return fmt.Errorf("%s: only files inside an image can be copied to standard output", quote(op.Raw))
		}
		for _, s := range p.expand(op, vols) {
			e, err := s.side.stat(s.path, true)
			switch {
			case err != nil:
				p.problem(true, s.show, errText(err))
			case e.kind != kindFile:
				p.problem(true, s.show, "is a directory; only files can be copied to standard output")
			default:
				p.add(item{kind: itemFile, src: p.whole(s), dst: p.whole(end{show: "-"}), size: e.size, mtime: e.mtime, parent: -1, ahead: -1, stdout: true})
				p.bytes += e.size
				p.noteSource(s.side, e)
			}
			if p.halted {
				return nil
			}
		}
	}
	return nil
}

// planSource plans one source: a file, or a directory with everything in
// it.
func (p *Plan) planSource(s end, contents bool, dst end, intoDir bool) {
	e, err := s.side.stat(s.path, true)
	if err != nil {
		p.problemLine(true, s.show, errText(err), fmt.Sprintf("cannot stat %s: %s", quote(s.show), errText(err)))
		return
	}
	if e.kind == kindSkip {
		p.skip(e, s.show)
		return
	}
	if e.kind == kindDir && !p.o.Recursive {
		p.problemLine(true, s.show, "is a directory (give -r to copy it)", fmt.Sprintf("-r not specified; omitting directory %s", quote(s.show)))
		return
	}
	contents = contents && e.kind == kindDir
	if contents {
		s.show = strings.TrimSuffix(strings.TrimSuffix(s.show, "/."), ".")
		if strings.HasSuffix(s.show, "::") {
			s.show += "/"
		}
	}
	var target end
	var ex existing
	switch {
	case contents && intoDir:
		target = dst
		ex = existing{exists: true, dir: true}
		p.dirState(dst, false)
	case intoDir:
		var ok bool
		if target, ex, ok = p.place(dst, s, e, s.side.base(s.path)); !ok {
			return
		}
	default:
		if p.newDirOnly && e.kind != kindDir {
			show := strings.TrimSuffix(dst.show, "/") + "/"
			p.problemLine(true, s.show, "cannot create "+quote(show)+": not a directory", fmt.Sprintf("cannot create regular file %s: not a directory", quote(show)))
			return
		}
		var ok bool
		if target, ex, ok = p.place(parentOf(dst), s, e, dst.side.base(dst.path)); !ok {
			return
		}
	}
	if sameVolume(s, target) && s.side.fold(s.path) == s.side.fold(target.path) {
		p.problemLine(true, s.show, "is the destination itself", fmt.Sprintf("%s and %s are the same file", quote(s.show), quote(target.show)))
		return
	}
	if e.kind == kindDir && inside(s, target) {
		p.problemLine(true, s.show, "cannot be copied into itself", fmt.Sprintf("cannot copy a directory, %s, into itself, %s", quote(s.show), quote(target.show)))
		return
	}
	if e.kind == kindDir {
		if p.ahead = aheadFor(s, e); p.ahead != nil {
			defer func() { p.ahead.stop(); p.ahead = nil }()
		}
		p.planDir(s, target, e, ex.exists, -1, []ancestor{{e.ident(), s.show}})
		return
	}
	p.addFile(p.whole(s), p.whole(target), s.side, e, ex, -1)
}

// ancestor is a directory being walked, for loop detection.
type ancestor struct {
	id   fileID
	show string
}

// planDir plans a directory and everything in it.
func (p *Plan) planDir(src, dst end, e entry, merge bool, parent int, up []ancestor) {
	idx := p.items.len()
	srcAt, dstAt := p.register(src), p.register(dst)
	p.add(item{kind: itemMkdir, src: ref{at: srcAt}, dst: ref{at: dstAt}, mtime: e.mtime, exists: merge, parent: int32(parent), ahead: -1})
	p.claim()
	p.dirState(dst, !merge)
	ents, err := p.listDir(src)
	if err != nil {
		p.problemLine(true, src.show, "cannot be read: "+errText(err), fmt.Sprintf("cannot read directory %s: %s", quote(src.show), errText(err)))
	}
	// A new directory is made whole, with room for every member listed
	// (size: its slots, see volSide.mkdir); the walk pauses for the
	// copy only after this.
	p.items.at(idx).size = dirSlots(dst.side, ents)
	for _, c := range ents {
		if p.halted {
			break
		}
		p.pause()
		cs := src.child(c.name)
		switch c.kind {
		case kindSkip:
			p.skip(c, cs.show)
			continue
		case kindDir:
			if a, loop := loopOf(up, c.ident()); loop {
				p.problem(false, cs.show, fmt.Sprintf("leads back to %s, a directory that holds it (a loop)", quote(a.show)))
				continue
			}
		}
		t, ex, ok := p.place(dst, cs, c, c.name)
		if !ok {
			continue
		}
		if c.kind == kindDir {
			p.planDir(cs, t, c, ex.exists, idx, append(up, ancestor{c.ident(), cs.show}))
			continue
		}
		// The stored name shares the source's string when they are the
		// same, and holds no longer path when they are not.
		stored := t.side.base(t.path)
		if stored == c.name {
			stored = c.name
		} else {
			stored = strings.Clone(stored)
		}
		p.addFile(ref{srcAt, c.name}, ref{dstAt, stored}, src.side, c, ex, idx)
	}
	p.add(item{kind: itemDirDone, closes: true, src: ref{at: srcAt}, dst: ref{at: dstAt}, mtime: e.mtime, parent: int32(idx), ahead: -1})
}

func loopOf(up []ancestor, id fileID) (ancestor, bool) {
	if id == (fileID{}) {
		return ancestor{}, false
	}
	for _, a := range up {
		if a.id == id {
			return a, true
		}
	}
	return ancestor{}, false
}

func (p *Plan) addFile(src, dst ref, from side, e entry, ex existing, parent int) {
	p.add(item{kind: itemFile, src: src, dst: dst, size: max(e.size, 0), mtime: e.mtime, stream: e.stream,
		exists: ex.exists, over: ex.first, parent: int32(parent), ahead: -1})
	p.claim()
	p.bytes += max(e.size, 0)
	p.noteSource(from, e)
}

// noteSource records a volume file that the copy reads, when the copy
// writes to a volume (which might be the same one).
func (p *Plan) noteSource(s side, e entry) {
	if _, ok := s.(volSide); !ok || e.first == 0 || !p.toVolume {
		return
	}
	m := p.sources[s.id()]
	if m == nil {
		m = map[uint32]bool{}
		p.sources[s.id()] = m
	}
	m[e.first] = true
}

// checkOverlap refuses to overwrite a volume file that the same copy
// reads: its clusters could be reused before they are read.
func (p *Plan) checkOverlap() {
	for i := 0; i < p.items.len(); i++ {
		it := p.items.at(i)
		if it.kind != itemFile || !it.exists || it.over == 0 || it.stdout {
			continue
		}
		if src, dst := p.ends2(it); p.sources[dst.side.id()][it.over] {
			it.kind = itemNone
			p.bytes -= it.size
			p.problem(true, src.show, fmt.Sprintf("would overwrite %s, which this copy also reads", quote(dst.show)))
		}
	}
}

// sameVolume reports whether two ends are on the same volume.
func sameVolume(a, b end) bool {
	va, ok1 := a.side.(volSide)
	vb, ok2 := b.side.(volSide)
	return ok1 && ok2 && va.vol == vb.vol
}

// inside reports whether b lies inside directory a on the same volume,
// comparing names as the volume does (its FoldName, not strings.ToLower:
// the Kelvin sign K lowers to "k" but is a name of its own on FAT).
func inside(a, b end) bool {
	if !sameVolume(a, b) {
		return false
	}
	ap, bp := a.side.fold(a.path), a.side.fold(b.path)
	return ap == "." || strings.HasPrefix(bp, ap+"/")
}

// dirKey is the key of a destination directory's registry.
func dirKey(dir end) string {
	if _, ok := dir.side.(volSide); ok {
		return dir.side.id() + "\x00" + dir.side.fold(path.Clean(dir.path))
	}
	return dir.side.id() + "\x00" + dir.path
}

// dirState is the registry of names going into a destination directory.
// The one returned last is kept with the directory it is for: a folder's
// members are placed one after another, and its key costs a fold of its
// path (and a few strings) per member.
func (p *Plan) dirState(dir end, fresh bool) *dirNames {
	if l := &p.lastDir; l.d != nil && l.path == dir.path && sameKeySide(l.side, dir.side) {
		return l.d
	}
	key := dirKey(dir)
	d := p.dirs[key]
	if d == nil {
		d = &dirNames{fresh: fresh, fold: dir.side.fold}
		p.dirs[key] = d
	}
	p.lastDir = lastDir{dir.path, dir.side, d}
	return d
}

// lastDir is the registry dirState returned last, and the directory it is
// for (dropped with the registry).
type lastDir struct {
	path string
	side side
	d    *dirNames
}

// sameKeySide reports whether a directory's path on side a and on side b
// have one dirKey: the same image, or both the host.
func sameKeySide(a, b side) bool {
	switch a := a.(type) {
	case volSide:
		b, ok := b.(volSide)
		return ok && a.spec == b.spec
	case hostSide:
		_, ok := b.(hostSide)
		return ok
	}
	return false
}

// problem records a source that will not be copied: a failure (an error)
// or a skip (a rule or a choice). Either makes the exit status 1; with -Q
// it ends the plan.
func (p *Plan) problem(fail bool, path, reason string) {
	verb := "skipping"
	if fail {
		verb = "cannot copy"
	}
	p.problemLine(fail, path, reason, fmt.Sprintf("%s %s: %s", verb, quote(path), reason))
}

// skip records an entry not copied: a problem, or only a note (the
// target image met in the tree, which is not lost from the copy).
func (p *Plan) skip(e entry, show string) {
	if e.note {
		p.o.Warn(line(fmt.Sprintf("skipping %s: %s", quote(show), e.reason())))
		return
	}
	p.problem(e.fail, show, e.reason())
}

// problemLine is problem with the line standard error shows.
func (p *Plan) problemLine(fail bool, path, reason, msg string) {
	pr := cmdutil.Problem{Path: path, Reason: reason}
	if fail {
		p.res.Failed = append(p.res.Failed, pr)
	} else {
		p.res.Skipped = append(p.res.Skipped, pr)
	}
	p.o.Warn(line(msg))
	if p.o.StopOnError {
		p.halted = true
	}
}

// renamed records a source stored under another name.
func (p *Plan) renamed(src, dst, reason string) {
	p.res.Renamed = append(p.res.Renamed, Renamed{Path: src, To: dst, Reason: reason})
	p.o.Warn(line(fmt.Sprintf("%s is copied as %s: %s", quote(src), quote(dst), reason)))
}
