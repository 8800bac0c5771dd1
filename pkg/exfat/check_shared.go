package exfat

import (
	"fmt"
	"sort"
	"strings"
)

// reportShared names the owners of every shared cluster, one problem per
// set of owners. Two entries that name the same file (the same first
// cluster, size and kind) are an interrupted rename, reported as such.
func (t *treeCheck) reportShared() {
	renamed := t.reportRenames()
	type group struct {
		first Cluster
		n     int
	}
	groups := map[string]*group{}
	var keys []string
	for c, owners := range t.owners {
		if renamed[strings.Join(owners, "\x00")] {
			continue
		}
		k := strings.Join(owners, "\x00")
		g := groups[k]
		if g == nil {
			g = &group{first: c}
			groups[k] = g
			keys = append(keys, k)
		}
		g.n++
		if c < g.first {
			g.first = c
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := groups[k]
		owners := strings.Split(k, "\x00")
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
