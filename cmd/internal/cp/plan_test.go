package cp

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// fixture is an in-memory FAT16 volume named "img" and a host folder.
type fixture struct {
	t     *testing.T
	vol   vol.Volume
	host  string
	warns []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dev := fio.NewMemDevice(32<<20, 512)
	if _, err := vol.Format(dev, vol.FormatOptions{FAT: &vol.FATParams{Size: 32 << 20, Type: 16}, Now: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	v.SetClock(func() time.Time { return time.Date(2024, 1, 2, 3, 4, 6, 0, time.UTC) })
	return &fixture{t: t, vol: v, host: t.TempDir()}
}

// h is a host path in the fixture's folder.
func (f *fixture) h(rel string) string { return filepath.Join(f.host, filepath.FromSlash(rel)) }

// files makes host files (a trailing slash makes a folder).
func (f *fixture) files(names ...string) {
	f.t.Helper()
	for _, n := range names {
		p := f.h(n)
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				f.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("data of "+n), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

// volFiles makes volume files (a trailing slash makes a folder).
func (f *fixture) volFiles(names ...string) {
	f.t.Helper()
	for _, n := range names {
		if strings.HasSuffix(n, "/") {
			if err := f.vol.MkdirAll(strings.TrimSuffix(n, "/"), time.Unix(0, 0)); err != nil {
				f.t.Fatal(err)
			}
			continue
		}
		if d := filepathDir(n); d != "." {
			if err := f.vol.MkdirAll(d, time.Unix(0, 0)); err != nil {
				f.t.Fatal(err)
			}
		}
		w, err := f.vol.Create(n, 0, time.Unix(0, 0))
		if err == nil {
			_, err = w.Write([]byte("old " + n))
		}
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			f.t.Fatal(err)
		}
	}
}

// plan plans fcp ARGS (image operands name "img") with the options.
func (f *fixture) plan(o Options, args ...string) (*Plan, error) {
	f.t.Helper()
	var ops []cmdutil.Operand
	for _, a := range args {
		op, err := cmdutil.ParseOperand(a, "img")
		if err != nil {
			f.t.Fatal(err)
		}
		ops = append(ops, op)
	}
	f.warns = nil
	o.Warn = func(l string) { f.warns = append(f.warns, l) }
	return NewPlan(ops[:len(ops)-1], ops[len(ops)-1], map[string]vol.Volume{"img": f.vol}, o)
}

// copy plans and runs fcp ARGS.
func (f *fixture) copy(o Options, args ...string) *Result {
	f.t.Helper()
	p, err := f.plan(o, args...)
	if err != nil {
		f.t.Fatalf("fcp %q: %v", args, err)
	}
	return p.Run()
}

// tree lists the volume: every path, with a file's content ("/" ends a
// folder's).
func (f *fixture) tree() map[string]string {
	f.t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(f.vol, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		if d.IsDir() {
			out[p+"/"] = ""
			return nil
		}
		r, err := f.vol.Open(p)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(r)
		out[p] = string(b)
		return err
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *fixture) paths() []string {
	var ps []string
	for p := range f.tree() {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

func problemPaths(ps []cmdutil.Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Path)
	}
	return out
}

// cp's rules for where a copy lands, without spawning a process.
func TestPlanPathRules(t *testing.T) {
	cases := []struct {
		name     string
		host     []string
		vol      []string
		args     []string // host paths are relative to the fixture's folder
		rec      bool
		want     []string // the volume's paths afterwards
		planErr  string
		problems []string
	}{
		{name: "file into root", host: []string{"a.txt"}, args: []string{"a.txt", "::/"}, want: []string{"a.txt"}},
		{name: "new dest names the file", host: []string{"a.txt"}, args: []string{"a.txt", "::/b.bin"}, want: []string{"b.bin"}},
		{name: "dir into existing dir", host: []string{"d/x", "d/s/y"}, vol: []string{"t/"}, args: []string{"d", "::/t"}, rec: true,
			want: []string{"t/", "t/d/", "t/d/s/", "t/d/s/y", "t/d/x"}},
		{name: "dir as new dest", host: []string{"d/x"}, args: []string{"d", "::/n"}, rec: true, want: []string{"n/", "n/x"}},
		{name: "dir/. copies contents", host: []string{"d/x", "d/s/y"}, vol: []string{"t/"}, args: []string{"d/.", "::/t"}, rec: true,
			want: []string{"t/", "t/s/", "t/s/y", "t/x"}},
		{name: "several into dir", host: []string{"a", "b"}, vol: []string{"t/"}, args: []string{"a", "b", "::/t"}, want: []string{"t/", "t/a", "t/b"}},
		{name: "several onto a file", host: []string{"a", "b"}, vol: []string{"f"}, args: []string{"a", "b", "::/f"}, planErr: "is not a directory"},
		{name: "slash onto a file", host: []string{"a"}, vol: []string{"f"}, args: []string{"a", "::/f/"}, planErr: "is not a directory"},
		// cp makes no missing directory: not DEST's parents, not DEST for
		// several sources, not DEST/ for a file.
		{name: "missing parent", host: []string{"a"}, args: []string{"a", "::/no/such/a"}, planErr: "cannot create '::/no/such/a': directory '::/no/such' does not exist"},
		{name: "missing parent with -r", host: []string{"a"}, args: []string{"a", "::/no/such/a"}, rec: true, planErr: "directory '::/no/such' does not exist"},
		{name: "dir, missing parents with -r", host: []string{"A/x"}, vol: []string{"D/"}, args: []string{"A", "::/D/x/y"}, rec: true, planErr: "cannot create '::/D/x/y': directory '::/D/x' does not exist"},
		{name: "parent is a file", host: []string{"a"}, vol: []string{"f"}, args: []string{"a", "::/f/a"}, planErr: "cannot use '::/f/a': not a directory"},
		{name: "file to a missing dir/", host: []string{"f1"}, args: []string{"f1", "::/D/"}, problems: []string{"f1"}},
		{name: "file to a missing dir/ with -r", host: []string{"f1"}, args: []string{"f1", "::/D/"}, rec: true, problems: []string{"f1"}},
		{name: "dir to a missing dir/ names the copy", host: []string{"src/a", "src/s/b"}, args: []string{"src", "::/new/"}, rec: true,
			want: []string{"new/", "new/a", "new/s/", "new/s/b"}},
		{name: "dir to an existing dir/ goes inside", host: []string{"src/a"}, vol: []string{"new/"}, args: []string{"src", "::/new/"}, rec: true,
			want: []string{"new/", "new/src/", "new/src/a"}},
		{name: "dir/. to a missing dir/", host: []string{"src/a"}, args: []string{"src/.", "::/new/"}, rec: true, want: []string{"new/", "new/a"}},
		{name: "dir to a missing dir/ in a missing parent", host: []string{"src/a"}, args: []string{"src", "::/X/new/"}, rec: true, planErr: "directory '::/X' does not exist"},
		{name: "several to a missing dir/", host: []string{"a", "b"}, args: []string{"a", "b", "::/new/"}, rec: true, planErr: "target '::/new' is not a directory: it does not exist"},
		{name: "stdin to a missing dir/", args: []string{"-", "::/new/"}, planErr: "standard input has no name"},
		{name: "dir without -r", host: []string{"d/x"}, args: []string{"d", "::/"}, problems: []string{"d"}},
		{name: "missing source, others go on", host: []string{"a"}, args: []string{"nosuch", "a", "::/"}, want: []string{"a"}, problems: []string{"nosuch"}},
		{name: "file onto dir", host: []string{"a"}, vol: []string{"a/x"}, args: []string{"a", "::/"}, want: []string{"a/", "a/x"}, problems: []string{"a"}},
		{name: "dir onto file", host: []string{"a/x"}, vol: []string{"a"}, args: []string{"a", "::/"}, rec: true, want: []string{"a"}, problems: []string{"a"}},
		{name: "neither in an image", host: []string{"a"}, args: []string{"a", "b"}, planErr: "neither"},
		{name: "pattern of one names the copy", vol: []string{"a.txt", "b.bin"}, args: []string{"::/*.txt", "::/c.txt"}, want: []string{"a.txt", "b.bin", "c.txt"}},
		{name: "pattern of several onto a file", vol: []string{"a.txt", "b.txt", "f"}, args: []string{"::/*.txt", "::/f"}, planErr: "is not a directory"},
		{name: "pattern of several, new dest", vol: []string{"a.txt", "b.txt"}, args: []string{"::/*.txt", "::/n"}, planErr: "target '::/n' is not a directory: it does not exist"},
		{name: "pattern of several, new dest with -r", vol: []string{"a.txt", "b.txt"}, args: []string{"::/*.txt", "::/n"}, rec: true, planErr: "it does not exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.files(tc.host...)
			f.volFiles(tc.vol...)
			args := append([]string{}, tc.args...)
			for i, a := range args {
				if a != "-" && !strings.HasPrefix(a, "::") {
					args[i] = f.h(a)
					if strings.HasSuffix(a, "/.") {
						args[i] += "/."
					}
				}
			}
			p, err := f.plan(Options{Recursive: tc.rec, Preserve: true}, args...)
			if tc.planErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.planErr) {
					t.Fatalf("plan error %v, want %q", err, tc.planErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res := p.Run()
			if diff := cmp.Diff(tc.want, f.paths()); diff != "" {
				t.Errorf("volume (-want +got):\n%s", diff)
			}
			var want []string
			for _, pr := range tc.problems {
				want = append(want, f.h(pr))
			}
			if diff := cmp.Diff(want, problemPaths(append(res.Failed, res.Skipped...))); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%s", diff, f.warns)
			}
		})
	}
}

// Names that clash on the volume (FAT ignores case and trailing dots and
// spaces) are found before anything is written and settled by the policy;
// nothing this copy wrote is overwritten unless -D o says so.
func TestPlanClashes(t *testing.T) {
	host := []string{"src/ReadMe.txt", "src/readme.txt", "src/README.TXT", "src/trail.", "src/trail", "src/other"}
	cases := []struct {
		name    string
		policy  Policy
		want    map[string]string
		skipped []string
		renamed int
	}{
		{"default skips", Policy{},
			map[string]string{"src/README.TXT": "data of src/README.TXT", "src/trail": "data of src/trail", "src/other": "data of src/other"},
			[]string{"src/ReadMe.txt", "src/readme.txt", "src/trail."}, 0},
		{"-D s skips", Policy{Primary: Skip},
			map[string]string{"src/README.TXT": "data of src/README.TXT", "src/trail": "data of src/trail", "src/other": "data of src/other"},
			[]string{"src/ReadMe.txt", "src/readme.txt", "src/trail."}, 0},
		{"-D a keeps all", Policy{Primary: Autorename},
			map[string]string{"src/README.TXT": "data of src/README.TXT", "src/ReadMe-1.txt": "data of src/ReadMe.txt",
				"src/readme-2.txt": "data of src/readme.txt", "src/trail": "data of src/trail", "src/trail-1": "data of src/trail.", "src/other": "data of src/other"},
			nil, 3},
		{"-D o: the last one wins", Policy{Primary: Overwrite},
			map[string]string{"src/README.TXT": "data of src/readme.txt", "src/trail": "data of src/trail.", "src/other": "data of src/other"},
			nil, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.files(host...)
			p, err := f.plan(Options{Recursive: true, Policy: tc.policy}, f.h("src"), "::/")
			if err != nil {
				t.Fatal(err)
			}
			if got := f.paths(); len(got) != 0 {
				t.Fatalf("planning wrote %v", got)
			}
			res := p.Run()
			got := f.tree()
			delete(got, "src/")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("volume (-want +got):\n%s", diff)
			}
			var want []string
			for _, s := range tc.skipped {
				want = append(want, f.h(s))
			}
			if diff := cmp.Diff(want, problemPaths(res.Skipped)); diff != "" {
				t.Errorf("skipped (-want +got):\n%s\n%s", diff, strings.Join(f.warns, "\n"))
			}
			if len(res.Renamed) != tc.renamed {
				t.Errorf("%d renamed, want %d: %+v", len(res.Renamed), tc.renamed, res.Renamed)
			}
			if res.OK() != (len(tc.skipped) == 0) {
				t.Errorf("OK() = %v with %d skipped", res.OK(), len(res.Skipped))
			}
		})
	}
}

// Clashes with what the volume held before: a file is overwritten (cp),
// kept with -n, renamed with -D a; a short name that a long-named entry
// holds is autorenamed (mcopy's default for secondary names); asking
// follows the answer, capital letters for every later clash.
func TestPlanClashExisting(t *testing.T) {
	cases := []struct {
		name    string
		policy  Policy
		answers []string
		want    map[string]string
		skipped int
	}{
		{"default overwrites", Policy{}, nil,
			map[string]string{"a.txt": "data of in/a.txt", "b.txt": "data of in/b.txt", "Program Files": "old Program Files", "PROGRA~1-1": "data of in/PROGRA~1"}, 0},
		{"-n skips", Policy{Primary: Skip}, nil,
			map[string]string{"a.txt": "old a.txt", "b.txt": "old b.txt", "Program Files": "old Program Files", "PROGRA~1-1": "data of in/PROGRA~1"}, 2},
		{"-D aS", Policy{Primary: Autorename, Secondary: Skip}, nil,
			map[string]string{"a.txt": "old a.txt", "b.txt": "old b.txt", "a-1.txt": "data of in/a.txt", "b-1.txt": "data of in/b.txt", "Program Files": "old Program Files"}, 1},
		{"-D O overwrites the long-named entry", Policy{Secondary: Overwrite}, nil,
			map[string]string{"a.txt": "data of in/a.txt", "b.txt": "data of in/b.txt", "Program Files": "data of in/PROGRA~1"}, 0},
		{"-D m, answers s then a", Policy{Primary: Ask}, []string{"s", "a"},
			map[string]string{"a.txt": "old a.txt", "b.txt": "old b.txt", "b-1.txt": "data of in/b.txt", "Program Files": "old Program Files", "PROGRA~1-1": "data of in/PROGRA~1"}, 1},
		{"-D m, answer O for all", Policy{Primary: Ask}, []string{"O"},
			map[string]string{"a.txt": "data of in/a.txt", "b.txt": "data of in/b.txt", "Program Files": "old Program Files", "PROGRA~1-1": "data of in/PROGRA~1"}, 0},
		{"-D r, a new name", Policy{Primary: Rename}, []string{"x.txt", "b.txt\n", "y.txt."},
			map[string]string{"a.txt": "old a.txt", "x.txt": "data of in/a.txt", "b.txt": "old b.txt", "y.txt": "data of in/b.txt", "Program Files": "old Program Files", "PROGRA~1-1": "data of in/PROGRA~1"}, 0},
		{"-D m without a terminal skips", Policy{Primary: Ask}, nil,
			map[string]string{"a.txt": "old a.txt", "b.txt": "old b.txt", "Program Files": "old Program Files", "PROGRA~1-1": "data of in/PROGRA~1"}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.volFiles("a.txt", "b.txt", "Program Files")
			f.files("in/a.txt", "in/b.txt", "in/PROGRA~1")
			o := Options{Recursive: true, Policy: tc.policy}
			var asked []string
			if tc.answers != nil {
				o.Ask = func(q string) (string, error) {
					asked = append(asked, q)
					if len(tc.answers) == 0 {
						return "", io.EOF
					}
					a := tc.answers[0]
					tc.answers = tc.answers[1:]
					return a, nil
				}
			}
			res := f.copy(o, f.h("in")+"/.", "::/")
			if diff := cmp.Diff(tc.want, f.tree()); diff != "" {
				t.Errorf("volume (-want +got):\n%s\nwarnings:\n%s\nasked:\n%s", diff, strings.Join(f.warns, "\n"), strings.Join(asked, "\n"))
			}
			if len(res.Skipped) != tc.skipped {
				t.Errorf("%d skipped, want %d: %v", len(res.Skipped), tc.skipped, res.Skipped)
			}
		})
	}
}

// An entry whose name is a wildcard pattern wins over the pattern's
// reading, and "\[" escapes a bracket.
func TestExpandLiteralWins(t *testing.T) {
	cases := []struct {
		vol  []string
		arg  string
		want []string
	}{
		{[]string{"[br]67.bin", "b67.bin", "r67.bin"}, "::/[br]67.bin", []string{"[br]67.bin"}},
		{[]string{"b67.bin", "r67.bin"}, "::/[br]67.bin", []string{"b67.bin", "r67.bin"}},
		{[]string{"[br]67.bin", "b67.bin"}, `::/\[br]67.bin`, []string{"[br]67.bin"}},
		{[]string{"d/[x].txt", "d/x.txt"}, `::\d/\[x].txt`, []string{"d/[x].txt"}},
		{[]string{"DCIM/A.JPG", "DCIM/b.jpg", "DCIM/c.png"}, "::/dcim/*.JpG", []string{"dcim/A.JPG", "dcim/b.jpg"}}, // the path as given, the names as stored
	}
	for _, tc := range cases {
		f := newFixture(t)
		f.volFiles(tc.vol...)
		op, err := cmdutil.ParseOperand(tc.arg, "img")
		if err != nil {
			t.Fatal(err)
		}
		ends, _, err := expand(op, volSide{vol: f.vol, spec: "img"})
		if err != nil {
			t.Fatalf("%s: %v", tc.arg, err)
		}
		var got []string
		for _, e := range ends {
			fi, err := f.vol.Stat(e.path)
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.arg, e.path, err)
			}
			got = append(got, strings.TrimPrefix(filepathDir(e.path)+"/"+fi.Name(), "./"))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.arg, diff)
		}
	}
}

func filepathDir(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[:i]
	}
	return "."
}

// The check that refuses to copy a folder into itself compares names as
// the volume does: the Kelvin sign K (U+212A) is a name of its own on FAT
// ("\u212Aa" and "ka" are two folders), though strings.ToLower maps it to
// "k".
func TestInsideUsesVolumeFolding(t *testing.T) {
	f := newFixture(t)
	f.volFiles("ka/x", "\u212Aa/")
	res := f.copy(Options{Recursive: true}, "::/ka", "::/\u212Aa/sub")
	if !res.OK() {
		t.Fatalf("copying ::/ka into ::/\u212Aa/sub: %v %v\n%s", res.Failed, res.Skipped, f.warns)
	}
	if got := f.tree()["\u212Aa/sub/x"]; got != "old ka/x" {
		t.Fatalf("::/\u212Aa/sub/x holds %q", got)
	}
	res = f.copy(Options{Recursive: true}, "::/KA", "::/ka/sub")
	if len(res.Failed) != 1 || !strings.Contains(strings.Join(f.warns, "\n"), "into itself") {
		t.Fatalf("copying ::/KA into ::/ka/sub: %v\n%s", res.Failed, f.warns)
	}
}

// Host symbolic links as cp -r and mcopy treat them: a link to a file is
// copied as the file, a link to a folder is skipped (followed with -L, a
// loop skipped), a dangling link is named and the copy goes on.
func TestPlanSymlinks(t *testing.T) {
	f := newFixture(t)
	f.files("L/sub/file", "L/z")
	for link, target := range map[string]string{"L/sub/up": "..", "L/sub/flink": "file", "L/dangling": "nowhere", "L/dlink": "sub"} {
		if err := os.Symlink(target, f.h(link)); err != nil {
			t.Fatal(err)
		}
	}
	res := f.copy(Options{Recursive: true}, f.h("L"), "::/")
	want := []string{"L/", "L/sub/", "L/sub/file", "L/sub/flink", "L/z"}
	if diff := cmp.Diff(want, f.paths()); diff != "" {
		t.Errorf("volume (-want +got):\n%s", diff)
	}
	if got := f.tree()["L/sub/flink"]; got != "data of L/sub/file" {
		t.Errorf("the file link holds %q, want its target's data", got)
	}
	if diff := cmp.Diff([]string{f.h("L/dangling")}, problemPaths(res.Failed)); diff != "" {
		t.Errorf("failed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{f.h("L/dlink"), f.h("L/sub/up")}, problemPaths(res.Skipped)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}

	// -L follows the links to folders; the one that leads back is skipped.
	res = f.copy(Options{Recursive: true, Follow: true}, f.h("L"), "::/M")
	for _, p := range []string{"M/dlink/file", "M/dlink/flink", "M/sub/file", "M/z"} {
		if _, ok := f.tree()[p]; !ok {
			t.Errorf("-L: %s missing", p)
		}
	}
	skipped := problemPaths(res.Skipped)
	if len(skipped) != 2 || !strings.Contains(strings.Join(f.warns, "\n"), "a loop") {
		t.Errorf("-L: skipped %v, want the two links back to L (through sub and dlink)\n%s", skipped, f.warns)
	}
}

// A stop request ends the copy inside a file: the file is dropped and its
// clusters are free again; files copied before it stay.
func TestRunStops(t *testing.T) {
	f := newFixture(t)
	f.files("a.txt")
	free := f.vol.FreeClusters()
	stop := make(chan struct{})
	pr, pw := io.Pipe()
	go func() {
		pw.Write(make([]byte, 3<<20))
		close(stop)
		// The pipe stays open: the copy must not wait for more data.
	}()
	p, err := f.plan(Options{Stdin: pr, Stop: stop}, "-", "::/BIG.BIN")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Result)
	go func() { done <- p.Run() }()
	select {
	case res := <-done:
		if !errors.Is(res.Stopped, ErrInterrupted) || res.Files != 0 {
			t.Fatalf("stopped: %v, %d files", res.Stopped, res.Files)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the copy did not stop while its source blocked")
	}
	if _, err := f.vol.Stat("BIG.BIN"); err == nil {
		t.Fatal("the interrupted file exists")
	}
	if got := f.vol.FreeClusters(); got != free {
		t.Fatalf("%d free clusters after the stop, want %d", got, free)
	}
	pw.Close()
}

// "-" reads standard input into a named file and writes files to standard
// output; -t converts line ends on the way in and out.
func TestStdinStdoutText(t *testing.T) {
	f := newFixture(t)
	res := f.copy(Options{Stdin: strings.NewReader("one\ntwo\n"), Text: true}, "-", "::/T.TXT")
	if !res.OK() || f.tree()["T.TXT"] != "one\r\ntwo\r\n" {
		t.Fatalf("stdin -t: %+v, volume %q", res, f.tree())
	}
	var out strings.Builder
	res = f.copy(Options{Stdout: &out, Text: true}, "::/T.TXT", "::/T.TXT", "-")
	if !res.OK() || out.String() != "one\ntwo\none\ntwo\n" {
		t.Fatalf("stdout -t: %+v, %q", res, out.String())
	}
	if _, err := f.plan(Options{}, "-", "::/"); err == nil || !strings.Contains(err.Error(), "standard input has no name") {
		t.Fatalf("stdin into a folder: %v", err)
	}
	if _, err := f.plan(Options{}, "-", f.h("x"), "::/d/"); err == nil || !strings.Contains(err.Error(), "only SOURCE") {
		t.Fatalf("stdin among sources: %v", err)
	}
}

// A short name given to a file earlier in the same copy can be a later
// source's long name ("Program Files" gets PROGRA~1): the later file is
// autorenamed when it is written, never written over the first.
func TestRunLateShortNameClash(t *testing.T) {
	f := newFixture(t)
	f.files("in/Program Files", "in/progra~1")
	res := f.copy(Options{Recursive: true}, f.h("in")+"/.", "::/")
	want := map[string]string{"Program Files": "data of in/Program Files", "progra~1-1": "data of in/progra~1"}
	if diff := cmp.Diff(want, f.tree()); diff != "" {
		t.Fatalf("volume (-want +got):\n%s\n%s", diff, f.warns)
	}
	if !res.OK() || len(res.Renamed) != 1 {
		t.Fatalf("result: %+v", res)
	}
}
