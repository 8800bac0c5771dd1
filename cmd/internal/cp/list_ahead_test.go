package cp

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The walks of a host tree (the room count's, then the plan's) take each
// folder's listing from a listAhead, which lists the tree on a goroutine
// of its own while the walk works and batches are copied: no walk lists
// a folder itself. What it copies, skips and
// names is what a walk that lists each folder itself makes of the tree:
// a folder it leaves out (a link back up with -L; one whose name a volume
// file holds) is listed and let go, and the listings after it still
// serve.
func TestWalkListsAhead(t *testing.T) {
	f := newFixture(t)
	var names []string
	for d := range 12 {
		for k := range 3 {
			names = append(names, fmt.Sprintf("in/d%02d/sub%d/file%d", d, k, k))
		}
		names = append(names, fmt.Sprintf("in/d%02d/top", d))
	}
	f.files(names...)
	f.volFiles("in/d05")
	if err := os.Symlink("..", f.h("in/d03/sub1/up")); err != nil {
		t.Fatal(err)
	}
	p, err := f.plan(Options{Recursive: true, Follow: true}, f.h("in"), "::/")
	if err != nil {
		t.Fatal(err)
	}
	res := p.Run()
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, "in/d05/") })
	if p.selfListed != 0 {
		t.Errorf("the walks listed %d folders themselves; want none (the listAhead lists them)", p.selfListed)
	}
	if res.Files != len(names) || len(res.Failed) != 1 || len(res.Skipped) != 1 {
		t.Errorf("result: %d files, failed %v, skipped %v", res.Files, res.Failed, res.Skipped)
	}
	got := f.tree()
	for _, n := range names {
		if got[n] != "data of "+n {
			t.Errorf("%s holds %q", n, got[n])
		}
	}
	if diff := cmp.Diff([]string{f.h("in/d05")}, problemPaths(res.Failed)); diff != "" {
		t.Errorf("failed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{f.h("in/d03/sub1/up")}, problemPaths(res.Skipped)); diff != "" || !strings.Contains(strings.Join(f.warns, "\n"), "a loop") {
		t.Errorf("skipped (-want +got):\n%s\n%s", diff, f.warns)
	}

	// One at a time (FTOOLS_CP_WORKERS=1), the walks list each folder
	// themselves: the one that counts the room the tree needs
	// (surelyFits), then the plan's.
	prefetchOff = true
	defer func() { prefetchOff = false }()
	f2 := newFixture(t)
	f2.host = f.host
	p, err = f2.plan(Options{Recursive: true}, f.h("in"), "::/")
	if err != nil {
		t.Fatal(err)
	}
	p.Run()
	if want := 2 * (1 + 12 + 12*3); p.selfListed != want {
		t.Errorf("FTOOLS_CP_WORKERS=1: the walk listed %d folders itself, want %d", p.selfListed, want)
	}
}
