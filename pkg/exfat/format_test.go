package exfat

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// TestFormatMatchesMkfs formats images of several sizes with Plan's
// defaults and with mkfs.exfat (serial set afterwards with exfatlabel -i),
// and compares them byte for byte: the same layout, boot regions, FAT,
// bitmap, up-case table and root directory.
func TestFormatMatchesMkfs(t *testing.T) {
	voltest.NeedTool(t, "mkfs.exfat")
	voltest.NeedTool(t, "exfatlabel")
	for _, tc := range []struct {
		size  int64
		label string
		args  []string
		p     FormatParams
	}{
		{size: 8 << 20},
		{size: 64 << 20, label: "hello"},
		{size: 300 << 20, label: "Ünïcödé"},
		{size: 40 << 20, args: []string{"-c", "64K"}, p: FormatParams{ClusterSize: 64 << 10}},
		{size: 40 << 20, args: []string{"-b", "4M"}, p: FormatParams{Align: 4 << 20}},
		{size: 33 << 30, label: "BIG"},
	} {
		t.Run(fmt.Sprintf("%dMiB%v", tc.size>>20, tc.args), func(t *testing.T) {
			const serial = 0x5EEDF00D
			ref := newImage(t, tc.size)
			args := append(append([]string{}, tc.args...), ref)
			if tc.label != "" {
				args = append([]string{"-L", tc.label}, args...)
			}
			if out, err := runTool(t, "mkfs.exfat", args...); err != nil {
				t.Fatalf("mkfs.exfat: %v\n%s", err, out)
			}
			if out, err := runTool(t, "exfatlabel", "-i", ref, fmt.Sprintf("%#x", serial)); err != nil {
				t.Fatalf("exfatlabel -i: %v\n%s", err, out)
			}
			p := tc.p
			p.Serial, p.Label = serial, tc.label
			ours := formatImage(t, tc.size, p)
			fsckClean(t, ours)
			compareImages(t, ref, ours)
		})
	}
}

// compareImages compares the metadata of two images (everything up to the
// end of the root directory's cluster).
func compareImages(t *testing.T, ref, ours string) {
	t.Helper()
	bs, err := DecodeBootSector(voltest.ReadFileAt(t, ref, 0, 512))
	if err != nil {
		t.Fatal(err)
	}
	l, _ := bs.Layout()
	n := l.ClusterOffset(bs.RootCluster) + l.ClusterSize
	want := voltest.ReadFileAt(t, ref, 0, int(n))
	got := voltest.ReadFileAt(t, ours, 0, int(n))
	// mkfs.exfat 1.2.0 fills the OEM parameters sectors with 0xFF; later
	// versions, and ftools, zero them (unused parameters have null GUIDs,
	// exFAT specification 3.3.2). The boot checksums differ with them.
	ss := int(l.SectorSize)
	for _, s := range []int{9, 11, 21, 23} {
		clear(want[s*ss : (s+1)*ss])
		clear(got[s*ss : (s+1)*ss])
	}
	if i := firstDiff(want, got); i >= 0 {
		t.Fatalf("images differ first at byte %d (%#x): mkfs.exfat %#02x, ftools %#02x (layout %+v)", i, i, want[i], got[i], *l)
	}
}

func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
