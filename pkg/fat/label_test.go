package fat

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestSetLabel(t *testing.T) {
	for _, bits := range []string{"12", "16", "32"} {
		t.Run("FAT"+bits, func(t *testing.T) {
			img := verbImage(t, bits) // mkfs.fat without -n: no label anywhere
			v := openVerb(t, img)
			if l, err := v.Label(); err != nil || l != "" {
				t.Fatalf("Label() = %q, %v; want none", l, err)
			}
			if err := v.SetLabel("My Disk"); err != nil {
				t.Fatal(err)
			}
			if l, _ := v.Label(); l != "MY DISK" {
				t.Errorf("Label() = %q after SetLabel", l)
			}
			closeVerb(t, v)
			fsckClean(t, img)
			if out, err := runTool(t, "mlabel", "-s", "-i", img, "::"); err != nil || !strings.Contains(out, "Volume label is MY DISK") {
				t.Errorf("mlabel -s: %v\n%s", err, out)
			}
			checkBootLabels(t, img, "MY DISK    ")

			// Change it (the entry is rewritten in place), then remove it.
			v = openVerb(t, img)
			if err := v.SetLabel("new_1"); err != nil {
				t.Fatal(err)
			}
			closeVerb(t, v)
			fsckClean(t, img)
			checkBootLabels(t, img, "NEW_1      ")
			v = openVerb(t, img)
			if l, _ := v.Label(); l != "NEW_1" {
				t.Errorf("Label() = %q, want NEW_1", l)
			}
			if l, ok, _ := v.RootLabel(); !ok || l != "NEW_1" {
				t.Errorf("RootLabel() = %q, %v", l, ok)
			}
			if err := v.SetLabel(""); err != nil {
				t.Fatal(err)
			}
			closeVerb(t, v)
			fsckClean(t, img)
			checkBootLabels(t, img, "NO NAME    ")
			if out, err := runTool(t, "mlabel", "-s", "-i", img, "::"); err != nil || !strings.Contains(out, "has no label") {
				t.Errorf("mlabel -s after clearing: %v\n%s", err, out)
			}
			v = openVerb(t, img)
			if _, ok, _ := v.RootLabel(); ok {
				t.Error("the root label entry is still there")
			}
		})
	}
}

// checkBootLabels checks the label field of the boot sector and, on FAT32,
// of the backup boot sector.
func checkBootLabels(t *testing.T, img, want string) {
	t.Helper()
	raw, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := DecodeBootSector(raw[:512])
	if err != nil {
		t.Fatal(err)
	}
	if got := string(bs.VolumeLabel[:]); got != want {
		t.Errorf("boot sector label %q, want %q", got, want)
	}
	if bs.FATSize16 == 0 {
		off := int(bs.BackupBootSector) * 512
		bk, err := DecodeBootSector(raw[off : off+512])
		if err != nil {
			t.Fatal(err)
		}
		if got := string(bk.VolumeLabel[:]); got != want {
			t.Errorf("backup boot sector label %q, want %q", got, want)
		}
	}
}

func TestSetLabelRefuses(t *testing.T) {
	img := verbImage(t, "12")
	v := openVerb(t, img)
	for _, bad := range []string{"TWELVE CHARS", "A*B", "A.B", " LEAD", "a\x01", "日本", "über"} {
		if err := v.SetLabel(bad); !errors.Is(err, ErrInvalidParams) {
			t.Errorf("SetLabel(%q) = %v, want ErrInvalidParams", bad, err)
		}
	}
	closeVerb(t, v)
	fsckClean(t, img)
}

// A label mtools wrote is found in the root directory, and decoded from
// code page 850.
func TestLabelFromMlabelCP850(t *testing.T) {
	img := verbImage(t, "16")
	if out, err := runTool(t, "mlabel", "-i", img, "::ÜBER"); err != nil {
		t.Fatalf("mlabel: %v\n%s", err, out)
	}
	v := openVerb(t, img)
	if l, err := v.Label(); err != nil || l != "ÜBER" {
		t.Errorf("Label() = %q, %v", l, err)
	}
}

// A label mtools wrote is found in the root directory.
func TestLabelFromMlabel(t *testing.T) {
	img := verbImage(t, "16")
	if out, err := runTool(t, "mlabel", "-i", img, "::HELLO"); err != nil {
		t.Fatalf("mlabel: %v\n%s", err, out)
	}
	v := openVerb(t, img)
	if l, err := v.Label(); err != nil || l != "HELLO" {
		t.Errorf("Label() = %q, %v", l, err)
	}
}
