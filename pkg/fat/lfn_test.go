package fat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestShortNameChecksumKnown(t *testing.T) {
	// Checksums mtools 4.0.32 wrote into the LFN slots of these short names.
	for _, tc := range []struct {
		name string
		sum  uint8
	}{
		{"README2 TXT", 0x54},
		{"LONGFI~1HTM", 0x48},
		{"\x9aN\xd8C\x9dD\x90 TXT", 0x10},
		{"EMOJI_~1TXT", 0xf5},
	} {
		if got := ShortNameChecksum(ShortName([]byte(tc.name))); got != tc.sum {
			t.Errorf("ShortNameChecksum(%q) = %#02x, want %#02x", tc.name, got, tc.sum)
		}
	}
}

func TestLongNameSlotsMtools(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sum   uint8
		slots []string
	}{
		{"long file name.html", 0x48, []string{
			"4265002e00680074006d000f00486c000000ffffffffffffffff0000ffffffff",
			"016c006f006e00670020000f0048660069006c00650020006e00000061006d00",
		}},
		{"Ünïcødé.txt", 0x10, []string{
			"41dc006e00ef006300f8000f00106400e9002e0074007800740000000000ffff",
		}},
	} {
		got, err := LongNameSlots(tc.name, tc.sum)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.slots) {
			t.Fatalf("%q: %d slots, want %d", tc.name, len(got), len(tc.slots))
		}
		for i := range got {
			if want := mustHex(t, tc.slots[i]); !bytes.Equal(got[i][:], want) {
				t.Errorf("%q slot %d:\n got %x\nwant %x", tc.name, i, got[i], want)
			}
		}
	}
}

// slotUnits returns all units of slots in name order (last on-disk slot first).
func slotUnits(slots [][DirEntrySize]byte) []uint16 {
	var u []uint16
	for i := len(slots) - 1; i >= 0; i-- {
		u = lfnSlotUnits(u, slots[i][:])
	}
	return u
}

func TestLongNameSlotsLengths(t *testing.T) {
	for _, n := range []int{1, 12, 13, 14, 25, 26, 27, 254, 255} {
		name := strings.Repeat("a", n-1) + "Z"
		slots, err := LongNameSlots(name, 0xA5)
		if err != nil {
			t.Fatalf("%d: %v", n, err)
		}
		if want := (n + 12) / 13; len(slots) != want {
			t.Fatalf("%d units: %d slots, want %d", n, len(slots), want)
		}
		for i, s := range slots {
			wantOrd := byte(len(slots) - i)
			if i == 0 {
				wantOrd |= 0x40
			}
			if s[0] != wantOrd || s[11] != 0x0F || s[12] != 0 || s[13] != 0xA5 || s[26] != 0 || s[27] != 0 {
				t.Errorf("%d units slot %d: header %x", n, i, s)
			}
		}
		u := slotUnits(slots)
		if string(utf16.Decode(u[:n])) != name {
			t.Errorf("%d units: name %q", n, string(utf16.Decode(u[:n])))
		}
		if n%13 != 0 {
			if u[n] != 0 {
				t.Errorf("%d units: no terminator", n)
			}
			for _, p := range u[n+1:] {
				if p != 0xFFFF {
					t.Errorf("%d units: padding %#04x", n, p)
				}
			}
		} else if len(u) != n {
			t.Errorf("%d units: %d units stored", n, len(u))
		}
	}
	if _, err := LongNameSlots(strings.Repeat("x", 256), 0); err == nil {
		t.Error("256 units accepted")
	}
	if _, err := LongNameSlots(strings.Repeat("😀", 128), 0); err == nil {
		t.Error("256 units of surrogate pairs accepted")
	}
	if _, err := LongNameSlots("", 0); err == nil {
		t.Error("empty name accepted")
	}
}

func TestLongNameSlotsSurrogates(t *testing.T) {
	// 6 pairs + 1 BMP char = 13 units, and a pair split across slots.
	for _, name := range []string{"😀😁😂🤣😃😄x", "abcdefghijkl😀m", "𝄞"} {
		slots, err := LongNameSlots(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		u := slotUnits(slots)
		if l := len(utf16.Encode([]rune(name))); l%13 != 0 {
			u = u[:l]
		}
		if got := string(utf16.Decode(u)); got != name {
			t.Errorf("%q: decoded %q", name, got)
		}
	}
	slots, _ := LongNameSlots("abcdefghijkl😀m", 1)
	if hi, lo := binary.LittleEndian.Uint16(slots[1][30:]), binary.LittleEndian.Uint16(slots[0][1:]); hi != 0xD83D || lo != 0xDE00 {
		t.Errorf("split pair %#04x %#04x", hi, lo)
	}
}

func TestValidateLongName(t *testing.T) {
	for _, ok := range []string{"a", "long file name.html", " leading space", ".bashrc", "Ünïcødé.txt", "😀",
		strings.Repeat("x", 255), strings.Repeat("😀", 127) + "x", "a+b,c;d=e[f]", "del\x7f"} {
		if err := ValidateLongName(ok); err != nil {
			t.Errorf("ValidateLongName(%q) = %v", ok, err)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"", "empty"},
		{".", "reserved"},
		{"..", "reserved"},
		{"a*b", `'*'`},
		{"a/b", `'/'`},
		{`a\b`, `'\\'`},
		{"a:b", `':'`},
		{"a<b", `'<'`},
		{"a>b", `'>'`},
		{"a?b", `'?'`},
		{"a|b", `'|'`},
		{`a"b`, `'"'`},
		{"a\x00b", `'\x00'`},
		{"a\x1fb", `'\x1f'`},
		{"tab\there", `'\t'`},
		{strings.Repeat("x", 256), "256 UTF-16 units"},
		{strings.Repeat("😀", 128), "256 UTF-16 units"},
		{"foo.", "ends with '.'"},
		{"foo ", "ends with ' '"},
		{"bad\xffutf8", "UTF-8"},
	} {
		err := ValidateLongName(tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateLongName(%q) = %v, want error containing %s", tc.name, err, tc.want)
			continue
		}
		if len(tc.name) < 20 && !strings.Contains(err.Error(), strconv.Quote(tc.name)) {
			t.Errorf("error %q does not name %q", err, tc.name)
		}
	}
	if got := CleanLongName("foo. . "); got != "foo" {
		t.Errorf("CleanLongName = %q", got)
	}
	var ne *nameError
	if !errors.As(ValidateLongName("a?"), &ne) {
		t.Error("not a *nameError")
	}
}
