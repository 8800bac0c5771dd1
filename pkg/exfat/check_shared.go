package exfat

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
)

// reportShared names the owners of every shared cluster, one problem per
// set of owners. Two entries that name the same file (the same first
// cluster, size and kind) are an interrupted rename, reported as such.
//
// The owners are worked out a run at a time: a sweep over the runs each
// owner holds (t.holds) cuts the shared clusters into segments whose
// owners stay the same, and the segments are grouped by their owners,
// without a step per cluster per owner.
func (t *treeCheck) reportShared() {
	renamed := t.reportRenames()
	type group struct {
		owners []string
		first  Cluster
		n      int64
	}
	// A segment's owners are identified by two sums of a hash of each
	// owner's path (and their count), kept as owners come and go.
	type setKey struct {
		a, b uint64
		n    int
	}
	seedA, seedB := maphash.MakeSeed(), maphash.MakeSeed()
	// Each run of each holding comes and goes once in the sweep.
	type event struct {
		at    Cluster
		index int // into runs
		start bool
	}
	type heldRun struct {
		h    *holding
		a, b uint64
	}
	var runs []heldRun
	for _, h := range t.nholds {
		var a, b uint64
		for _, o := range h.owners {
			a += maphash.String(seedA, o.path)
			b += maphash.String(seedB, o.path)
		}
		for range h.runs {
			runs = append(runs, heldRun{h, a, b})
		}
	}
	events := make([]event, 0, 2*len(runs))
	k := 0
	for _, h := range t.nholds {
		for _, r := range h.runs {
			events = append(events, event{r.Start, k, true}, event{r.End(), k, false})
			k++
		}
	}
	slices.SortFunc(events, func(x, y event) int { return cmp.Compare(x.at, y.at) })
	groups := map[setKey]*group{}
	var order []*group
	var key setKey
	active := make([]int, 0, 8)   // indexes into runs
	pos := make([]int, len(runs)) // where each is in active
	for i := 0; i < len(events); {
		at := events[i].at
		for ; i < len(events) && events[i].at == at; i++ {
			t.rep.work.ownerSteps++
			ev := events[i]
			r := runs[ev.index]
			n := len(r.h.owners)
			if ev.start {
				key.a, key.b, key.n = key.a+r.a, key.b+r.b, key.n+n
				pos[ev.index] = len(active)
				active = append(active, ev.index)
				continue
			}
			key.a, key.b, key.n = key.a-r.a, key.b-r.b, key.n-n
			k := pos[ev.index]
			last := active[len(active)-1]
			active[k], pos[last] = last, k
			active = active[:len(active)-1]
		}
		if len(active) == 0 || i == len(events) {
			continue
		}
		g := groups[key]
		if g == nil {
			// The owners in the order the walk met them, as each
			// cluster's list of owners reads.
			var held []owner
			for _, k := range active {
				held = append(held, runs[k].h.owners...)
			}
			slices.SortStableFunc(held, func(x, y owner) int { return cmp.Compare(x.seq, y.seq) })
			owners := make([]string, len(held))
			for k, o := range held {
				owners[k] = o.path
			}
			t.rep.work.ownerSteps += int64(len(owners))
			g = &group{owners: owners, first: at}
			groups[key] = g
			order = append(order, g)
		}
		g.n += int64(events[i].at - at)
	}
	type named struct {
		key string
		g   *group
	}
	var list []named
	for _, g := range order {
		k := strings.Join(g.owners, "\x00")
		if renamed[k] {
			continue
		}
		list = append(list, named{k, g})
	}
	slices.SortFunc(list, func(x, y named) int { return strings.Compare(x.key, y.key) })
	for _, x := range list {
		g, owners := x.g, x.g.owners
		msg := fmt.Sprintf("%d clusters are used by %s", g.n, strings.Join(owners, " and "))
		switch {
		case allSame(owners):
			msg = fmt.Sprintf("its cluster chain loops back on itself (%d clusters met twice)", g.n)
		case len(owners) == 2 && holds(owners[0], owners[1]):
			msg = fmt.Sprintf("%s leads back to %s, a directory that holds it: a loop (%d clusters)", owners[1], owners[0], g.n)
		}
		t.rep.add(Problem{Kind: KindCrossLink, Path: owners[0], Paths: owners, Cluster: g.first, Offset: -1, Message: msg})
	}
}

// holds reports whether directory a holds path b, at any depth.
func holds(a, b string) bool { return a == "/" || strings.HasPrefix(b, a+"/") }

func allSame(s []string) bool {
	for _, x := range s {
		if x != s[0] {
			return false
		}
	}
	return true
}

// reportRenames finds groups of entries naming the same file, reports
// each as an interrupted rename and plans deleting all but the first
// entry. It returns the owner lists the renames explain.
func (t *treeCheck) reportRenames() map[string]bool {
	type key struct {
		first Cluster
		size  uint64
		dir   bool
	}
	groups := map[key][]sharer{}
	var order []key
	for _, s := range t.sharers {
		k := key{s.stream.FirstCluster, s.stream.DataLength, s.dir}
		if len(groups[k]) == 0 {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	}
	explained := map[string]bool{}
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 || g[0].path == g[1].path || holds(g[0].path, g[1].path) || holds(g[1].path, g[0].path) {
			// A directory that names one holding it is a loop, not a
			// move: reportShared reports it.
			continue
		}
		var paths []string
		for _, s := range g {
			paths = append(paths, s.path)
		}
		explained[strings.Join(paths, "\x00")] = true
		what := "file"
		if k.dir {
			what = "directory"
		}
		off := entryOffsetIn(t.l, g[1].exts, g[1].slot)
		t.rep.add(Problem{Kind: KindRename, Path: g[1].path, Paths: paths, Cluster: k.first, Offset: off,
			Message: fmt.Sprintf("%s name the same %s (cluster %d, %d bytes): a move cut short", strings.Join(paths, " and "), what, k.first, k.size)})
		for _, s := range g[1:] {
			t.rep.renameFixes = append(t.rep.renameFixes, entryFix{exts: s.exts, slot: s.slot, set: make([]byte, s.slots*EntrySize)})
		}
	}
	return explained
}
