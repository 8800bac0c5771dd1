package fat

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestAttrString(t *testing.T) {
	for _, c := range []struct {
		a    Attr
		want string
	}{
		{0, ""}, {AttrArchive, "A"}, {AttrDirectory, "D"},
		{AttrReadOnly | AttrHidden | AttrSystem, "RHS"},
		{AttrVolumeID, "V"}, {AttrReadOnly | AttrArchive, "RA"},
	} {
		if got := c.a.String(); got != c.want {
			t.Errorf("Attr(%#02x).String() = %q, want %q", uint8(c.a), got, c.want)
		}
	}
}

func TestSetAttr(t *testing.T) {
	img := verbImage(t, "16")
	v := openVerb(t, img)
	if err := v.SetAttr("A.TXT", AttrReadOnly|AttrHidden, AttrArchive); err != nil {
		t.Fatal(err)
	}
	if err := v.SetAttr("SUB", AttrSystem, 0); err != nil {
		t.Fatal(err)
	}
	if err := v.SetAttr("A.TXT", AttrDirectory, 0); !errors.Is(err, ErrAttr) {
		t.Errorf("setting the directory bit: %v, want ErrAttr", err)
	}
	if err := v.SetAttr("/", AttrHidden, 0); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("root: %v, want ErrPermission", err)
	}
	if err := v.SetAttr("NOPE", AttrHidden, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want ErrNotExist", err)
	}
	closeVerb(t, v)
	fsckClean(t, img)
	out, err := runTool(t, "mattrib", "-i", img, "::/A.TXT", "::/SUB")
	if err != nil {
		t.Fatalf("mattrib: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	// mattrib prints "  A  SHR     ::/NAME": archive at column 2, then S, H, R.
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "      HR ") || !strings.HasPrefix(lines[1], "     S   ") {
		t.Errorf("mattrib after SetAttr:\n%s", out)
	}
	v = openVerb(t, img)
	if a := recOf(t, v, "A.TXT").Entry.Attr; a != AttrReadOnly|AttrHidden {
		t.Errorf("A.TXT attributes %s, want RH", a)
	}
	if a := recOf(t, v, "SUB").Entry.Attr; a != AttrDirectory|AttrSystem {
		t.Errorf("SUB attributes %s, want SD", a)
	}
}
