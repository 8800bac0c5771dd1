package cp

import (
	"fmt"
	"io/fs"
	"testing"

	"github.com/ftools/ftools/pkg/vol"
)

// statCounter counts the volume's Stat calls (each a path walk from the
// root).
type statCounter struct {
	vol.Volume
	n int
}

func (s *statCounter) Stat(name string) (fs.FileInfo, error) {
	s.n++
	return s.Volume.Stat(name)
}

// A new file is looked up once more when it is written only when its name
// could be a short name some file of this copy got (a late clash): a name
// longer than 8.3's 12 characters never is one, so copying a folder of
// such names costs no lookup per file. A name that could be one still is
// looked up (TestRunLateShortNameClash).
func TestRunLateClashLookups(t *testing.T) {
	f := newFixture(t)
	const files = 200
	names := make([]string, 0, files+1)
	for i := range files {
		names = append(names, fmt.Sprintf("in/d/long file name %03d.txt", i))
	}
	f.files(append(names, "in/SHORT.TXT")...)
	c := &statCounter{Volume: f.vol}
	f.vol = c
	res := f.copy(Options{Recursive: true}, f.h("in")+"/.", "::/")
	if !res.OK() || res.Files != files+1 {
		t.Fatalf("result: %+v", res)
	}
	if c.n > 20 {
		t.Fatalf("copying %d files looked the volume up %d times; want a few, whatever the number of files", files+1, c.n)
	}
	if got := f.tree()["d/long file name 123.txt"]; got != "data of in/d/long file name 123.txt" {
		t.Fatalf("d/long file name 123.txt holds %q", got)
	}
}
