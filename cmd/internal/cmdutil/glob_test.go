package cmdutil

import (
	"strings"
	"testing"
)

func TestVolumePathAndMeta(t *testing.T) {
	cases := []struct {
		arg, path string
		meta      bool
		literal   string
	}{
		{"::/DCIM/*.JPG", "DCIM/*.JPG", true, "*.JPG"},
		{`::\DCIM\*.JPG`, "DCIM/*.JPG", true, "*.JPG"},
		{"::/[br]67.bin", "[br]67.bin", true, "[br]67.bin"},
		{`::/\[br]67.bin`, `\[br]67.bin`, false, "[br]67.bin"},
		{`::/\[br\]67.bin`, `\[br\]67.bin`, false, "[br]67.bin"},
		{`img::\a\\b`, "a/b", false, "b"},
		{"::/", ".", false, "."},
		{"::/a/b/", "a/b", false, "b"},
	}
	for _, tc := range cases {
		op, err := ParseOperand(tc.arg, "i.img")
		if err != nil {
			t.Fatal(err)
		}
		p := volumePath(op)
		base := p[strings.LastIndex(p, "/")+1:]
		if p != tc.path || hasMeta(base) != tc.meta || unescape(base) != tc.literal {
			t.Errorf("%s: path %q (meta %v, literal %q), want %q (%v, %q)", tc.arg, p, hasMeta(base), unescape(base), tc.path, tc.meta, tc.literal)
		}
	}
}
