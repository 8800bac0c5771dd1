package fat

import "testing"

// MakeShortName answers a name asked twice in a row from what it found the
// first time (a new file's name is asked for when it is created and again
// when it is closed), as long as the set did not change: Add and Remove
// make it search again.
func TestMakeShortNameReuse(t *testing.T) {
	used := NewShortNameSet()
	for _, n := range []string{"LONGFI~1TXT", "LONGFI~2TXT", "LONGFI~3TXT", "LONGFI~4TXT"} {
		var s ShortName
		copy(s[:], n)
		used.Add(s)
	}
	const long = "long file name.txt"
	first, err := MakeShortName(long, used)
	if err != nil {
		t.Fatal(err)
	}
	if !used.hasLast || used.last.long != long {
		t.Fatalf("the answer for %q was not kept", long)
	}
	again, err := MakeShortName(long, used)
	if err != nil || again != first {
		t.Fatalf("asked again: %+v, %v; first %+v", again, err, first)
	}
	used.Add(first.Short)
	if used.hasLast {
		t.Fatal("Add kept the answer")
	}
	next, err := MakeShortName(long, used)
	if err != nil || next.Short == first.Short {
		t.Fatalf("after adding %s: %+v, %v", first.Short, next, err)
	}
	used.Remove(first.Short)
	if used.hasLast {
		t.Fatal("Remove kept the answer")
	}
	if back, err := MakeShortName(long, used); err != nil || back != first {
		t.Fatalf("after removing %s: %+v, %v; want %+v", first.Short, back, err, first)
	}
	if other, _ := MakeShortName("other name.txt", used); other.Short == first.Short {
		t.Fatalf("another name got the kept answer %s", other.Short)
	}
}

func TestMayBeShortName(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"FILE_0~1.TXT", true},
		{"progra~1", true},
		{"ÄBCDEFGH.TXT", true}, // 12 characters, 13 bytes
		{"名前.txt", true},
		{"file_000001.txt", false},
		{"ABCDEFGHI.TXT", false},
		{"", true},
	} {
		if got := MayBeShortName(c.name); got != c.want {
			t.Errorf("MayBeShortName(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// A name too long for 8.3 is told so before it is upper-cased: no
// allocation per file for the usual long name.
func TestExact83LongNameAllocations(t *testing.T) {
	for _, name := range []string{"file_000001.txt", "readme.html", "a.b.c"} {
		if _, _, ok := exact83(name); ok {
			t.Fatalf("exact83(%q) took it as 8.3", name)
		}
		if n := testing.AllocsPerRun(10, func() { exact83(name) }); n != 0 {
			t.Errorf("exact83(%q): %.0f allocations, want 0", name, n)
		}
	}
	if s, nt, ok := exact83("readme.txt"); !ok || s.String() != "README.TXT" || nt != NTLowerBase|NTLowerExt {
		t.Fatalf("exact83(readme.txt) = %s, %#x, %v", s, nt, ok)
	}
}
