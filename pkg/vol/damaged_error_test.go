package vol

import "testing"

// DamagedError counts its problems in words that agree with the number.
func TestDamagedErrorWording(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{1, "the volume is damaged (1 problem: bad): nothing was sorted; run fverify, and fverify --repair to repair it"},
		{3, "the volume is damaged (3 problems; the first: bad): nothing was sorted; run fverify, and fverify --repair to repair it"},
	} {
		if got := (&DamagedError{Problems: c.n, First: "bad", Verb: "sorted"}).Error(); got != c.want {
			t.Errorf("%d problems: %q, want %q", c.n, got, c.want)
		}
	}
}
