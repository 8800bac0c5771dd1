package cp

// A walk of a host tree spends much of its time listing folders: a
// getdents and a stat per member. The walk plans a batch, then waits
// while the batch is copied (stream.go), so those system calls would wait
// for the copy, and the copy for them. A listAhead lists the folders of
// one source tree on a goroutine of its own, in the order the walk takes
// them (depth first, members by name, as planDir and surelyFits go), while
// the copy runs; the walk takes each listing from it instead of listing
// the folder itself. The walk's rules are the same: what it makes of a
// listing, the problems it names and their order are as before; a folder
// the walk leaves out (a loop, a name refused, -Q) is listed and let go.
//
// What it holds is bounded: at most listAheadEntries members listed and
// not yet taken (a larger folder is listed alone).

const listAheadEntries = 16 << 10

// listing is one folder as the listAhead listed it.
type listing struct {
	path string
	ents []entry
	err  error
}

// listAhead lists one host source tree's folders ahead of the walk. Its
// goroutine goes through the tree in the walk's order; a second one lists
// the folder after the one it goes into, so that two folders are listed
// at once (the system calls of one run while the other's wait).
type listAhead struct {
	ch   chan listing
	quit chan struct{}
	done chan struct{}
	side side

	held budget // members listed and not taken

	// jobs hands a folder to the second lister (when it is idle);
	// pending counts those it listed that are not taken yet (at most
	// listAheadPending, so that a few large folders are not held at once).
	jobs    chan *aheadJob
	pending int
}

// listAheadPending is how many folders the second lister may have
// listed and not handed over.
const listAheadPending = 2

// aheadJob is a folder given to the second lister.
type aheadJob struct {
	l    listing
	done chan struct{}
}

// startListAhead starts listing the folder root of side s (identified by
// id, for loops) and every folder below it that a walk goes into.
func startListAhead(s side, root string, id fileID) *listAhead {
	la := &listAhead{ch: make(chan listing, 64), quit: make(chan struct{}), done: make(chan struct{}), side: s, jobs: make(chan *aheadJob)}
	la.held.init(listAheadEntries)
	go func() {
		for {
			select {
			case j := <-la.jobs:
				j.l.ents, j.l.err = s.list(j.l.path)
				close(j.done)
			case <-la.quit:
				return
			}
		}
	}()
	go func() {
		defer close(la.done)
		defer close(la.ch)
		la.walk(la.listed(root, nil), []fileID{id})
	}()
	return la
}

// ahead gives folder dir to the second lister, if it is idle and few of
// its listings wait; nil: not given.
func (la *listAhead) ahead(dir string) *aheadJob {
	if la.pending >= listAheadPending {
		return nil
	}
	j := &aheadJob{l: listing{path: dir}, done: make(chan struct{})}
	select {
	case la.jobs <- j:
		la.pending++
		return j
	default:
		return nil
	}
}

// listed is the listing of dir: the second lister's (j), or made now.
func (la *listAhead) listed(dir string, j *aheadJob) listing {
	if j != nil {
		<-j.done
		la.pending--
		return j.l
	}
	ents, err := la.side.list(dir)
	return listing{dir, ents, err}
}

// walk hands l over, then lists the folders in it and below, depth
// first; false: stopped.
func (la *listAhead) walk(l listing, up []fileID) bool {
	if !la.held.take(int64(len(l.ents))) {
		return false
	}
	select {
	case la.ch <- l:
	case <-la.quit:
		return false
	}
	var subs []int // the members it goes into
	for i, c := range l.ents {
		if c.kind == kindDir && !loopOfID(up, c.ident()) {
			subs = append(subs, i)
		}
	}
	var next *aheadJob
	for k, i := range subs {
		this := next
		next = nil
		if k+1 < len(subs) {
			next = la.ahead(la.side.join(l.path, l.ents[subs[k+1]].name))
		}
		c := l.ents[i]
		if !la.walk(la.listed(la.side.join(l.path, c.name), this), append(up, c.ident())) {
			return false
		}
	}
	return true
}

func loopOfID(up []fileID, id fileID) bool {
	if id == (fileID{}) {
		return false
	}
	for _, a := range up {
		if a == id {
			return true
		}
	}
	return false
}

// list is the listing of folder dir, taken in walk order: the folders
// listed before it that the walk did not go into are let go. ok is false
// when it has none (it then lists nothing more: the caller lists dir).
func (la *listAhead) list(dir string) (listing, bool) {
	for l := range la.ch {
		la.held.give(int64(len(l.ents)))
		if l.path == dir {
			return l, true
		}
	}
	return listing{}, false
}

// stop ends the listing and lets go of what it holds.
func (la *listAhead) stop() {
	la.held.close()
	close(la.quit)
	for range la.ch {
	}
	<-la.done
}

// listDir lists the folder src for the walk: from the listAhead when it
// has it, else itself (counted in selfListed).
func (p *Plan) listDir(src end) ([]entry, error) {
	if p.ahead != nil {
		if l, ok := p.ahead.list(src.path); ok {
			return l.ents, l.err
		}
	}
	p.selfListed++
	return src.side.list(src.path)
}

// aheadFor starts a listAhead for the host source folder s (nil for a
// volume's, which its own read-ahead serves, and with FTOOLS_CP_WORKERS=1,
// which lists each folder when the walk reaches it, as before).
func aheadFor(s end, e entry) *listAhead {
	if _, ok := s.side.(hostSide); !ok || e.kind != kindDir || prefetchOff {
		return nil
	}
	return startListAhead(s.side, s.path, e.ident())
}
