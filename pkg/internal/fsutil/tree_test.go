package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

var errTestCorrupt = errors.New("corrupt")

// fakeNode is a file or directory of a tree made up for CheckTree.
type fakeNode struct {
	name    string
	dir     bool
	first   uint32
	runs    []Run
	runsErr error
	members []string // paths of the members, in fakeTree
	listErr error
}

func fakeTree(nodes map[string]*fakeNode) Tree[*fakeNode] {
	return Tree[*fakeNode]{
		Name: func(n *fakeNode) string { return n.name },
		Dir:  func(n *fakeNode) (uint32, bool) { return n.first, n.dir },
		Runs: func(n *fakeNode) ([]Run, error) { return n.runs, n.runsErr },
		List: func(n *fakeNode) ([]*fakeNode, error) {
			var out []*fakeNode
			for _, m := range n.members {
				out = append(out, nodes[m])
			}
			return out, n.listErr
		},
		Root:     2,
		MaxDepth: 8,
		Corrupt:  errTestCorrupt,
	}
}

func TestCheckTree(t *testing.T) {
	// /d (cluster 10) holds f (20-22) and sub (11), which holds g (30).
	base := func() map[string]*fakeNode {
		return map[string]*fakeNode{
			"d":       {name: "d", dir: true, first: 10, runs: []Run{{10, 1}}, members: []string{"d/f", "d/sub"}},
			"d/f":     {name: "f", first: 20, runs: []Run{{20, 3}}},
			"d/sub":   {name: "sub", dir: true, first: 11, runs: []Run{{11, 1}}, members: []string{"d/sub/g"}},
			"d/sub/g": {name: "g", first: 30, runs: []Run{{30, 1}}},
		}
	}
	for _, c := range []struct {
		name   string
		damage func(map[string]*fakeNode)
		where  string // "" when the tree is sound
		what   string
	}{
		{"sound", func(map[string]*fakeNode) {}, "", ""},
		{"loop to the top", func(n map[string]*fakeNode) {
			n["d/sub"].first, n["d/sub"].runs = 10, []Run{{10, 1}}
		}, "/d/sub", "reached a second time (first as /d)"},
		{"directory naming the root", func(n map[string]*fakeNode) { n["d/sub"].first = 2 }, "/d/sub", "root"},
		{"broken chain", func(n map[string]*fakeNode) { n["d/sub/g"].runsErr = errTestCorrupt }, "/d/sub/g", "corrupt"},
		{"unreadable directory", func(n map[string]*fakeNode) { n["d/sub"].listErr = errors.New("read error") }, "/d/sub", "read error"},
		{"cross-link", func(n map[string]*fakeNode) { n["d/sub/g"].runs = []Run{{30, 1}, {22, 2}} }, "/d/sub/g", "cluster 22 is also held by /d/f"},
		{"cross-link inside one chain", func(n map[string]*fakeNode) { n["d/f"].runs = []Run{{20, 3}, {21, 1}} }, "/d/f", "cluster 21 comes twice in its chain"},
		{"too deep", func(n map[string]*fakeNode) {
			prev := n["d/sub"]
			for i := range 10 {
				p := strings.Repeat("x/", i+1)
				n[p] = &fakeNode{name: "x", dir: true, first: uint32(100 + i), runs: []Run{{uint32(100 + i), 1}}}
				prev.members = append(prev.members, p)
				prev = n[p]
			}
		}, "/d/sub/x/x/x/x/x/x/x/x", "nested more than 8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nodes := base()
			c.damage(nodes)
			items, err := CheckTree(fakeTree(nodes), nodes["d"], "/d")
			if c.where == "" {
				if err != nil || len(items) != 4 {
					t.Fatalf("CheckTree = %d items, %v; want 4 and no error", len(items), err)
				}
				// A directory comes before its members.
				for i, it := range items {
					if it.Parent >= i {
						t.Errorf("item %d (%s) comes before its directory %d", i, it.Node.name, it.Parent)
					}
				}
				return
			}
			var te *TreeError
			if !errors.As(err, &te) || te.Path != c.where || !strings.Contains(err.Error(), c.what) || items != nil {
				t.Fatalf("CheckTree = %v; want a TreeError at %s saying %q", err, c.where, c.what)
			}
		})
	}
}

// Dismantle frees and removes members before their directories, each
// with its own directory's node, the head last.
func TestDismantle(t *testing.T) {
	items := []TreeItem[string]{
		{Node: "d", Parent: -1, Runs: []Run{{10, 1}}},
		{Node: "d/a", Parent: 0, Runs: []Run{{20, 2}}},
		{Node: "d/e", Parent: 0, Runs: []Run{{30, 1}}},
		{Node: "d/e/b", Parent: 2},
	}
	var freed []uint32
	var order []string
	free := func(r Run) { freed = append(freed, r.Start) }
	Dismantle(items, free, func(n, p string, top bool) {
		order = append(order, fmt.Sprintf("%s<%s:%v", n, p, top))
	})
	if got, want := strings.Join(order, " "), "d/e/b<d/e:false d/e<d:false d/a<d:false d<:true"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if fmt.Sprint(freed) != "[30 20 10]" {
		t.Errorf("freed %v, want [30 20 10]", freed)
	}
}

// RemoveAll takes nothing for a missing name, refuses a tree its check
// refuses (naming the path, taking nothing), and takes a checked tree.
func TestRemoveAll(t *testing.T) {
	errBad := errors.New("bad tree")
	for _, c := range []struct {
		name     string
		checkErr error
		want     error
		took     bool
	}{
		{"missing", nil, nil, false},
		{"a/b", errBad, errBad, false},
		{"a/b", nil, nil, true},
	} {
		change := func(op, name string) (int, string, error) {
			if name == "missing" {
				return 0, "", fs.ErrNotExist
			}
			return 1, name, nil
		}
		check := func(_ int, r string, path string) ([]TreeItem[string], error) {
			if path != "/a/b" {
				t.Errorf("check of %q", path)
			}
			return []TreeItem[string]{{Node: r, Parent: -1}}, c.checkErr
		}
		took := false
		err := RemoveAll(c.name, change, check, func(int, []TreeItem[string]) { took = true })
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) || took != c.took {
			t.Errorf("%s, check %v: %v, took %v", c.name, c.checkErr, err, took)
		}
		var pe *fs.PathError
		if c.want != nil && (!errors.As(err, &pe) || pe.Path != "/a/b") {
			t.Errorf("%s: %v does not name /a/b", c.name, err)
		}
	}
}
