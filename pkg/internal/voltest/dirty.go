package voltest

import (
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// Boot decodes the volume's boot sector as dev holds it now (decode is
// the codec's DecodeBootSector), failing tb if it cannot.
func Boot[B any](tb testing.TB, dev *fio.Device, decode func([]byte) (B, error)) B {
	tb.Helper()
	b := make([]byte, 512)
	if _, err := dev.ReadAt(b, 0); err != nil {
		tb.Fatal(err)
	}
	bs, err := decode(b)
	if err != nil {
		tb.Fatal(err)
	}
	return bs
}

// DirtySession is a write session DirtyAtFirstWrite follows, on a volume
// opened on Dev whose tree holds a directory d.
type DirtySession struct {
	Dev    *fio.Device
	Refuse func() map[string]error // asks for changes the volume must refuse, by what they are
	Change func() error            // a change that succeeds (set an attribute of d)
	Commit func() error
	Close  func() error
	Dirty  func() bool // the dirty flag as the device holds it
	Flag   string      // the flag's name in messages
}

// DirtyAtFirstWrite checks the dirty flag's life over a session, the same
// on both codecs: refused changes write nothing at all, a change not yet
// committed writes nothing either, and the flag is on the device once the
// change is committed and off after Close.
func DirtyAtFirstWrite(t *testing.T, s DirtySession) {
	t.Helper()
	writes := s.Dev.Stats().WriteRequests
	for what, err := range s.Refuse() {
		if err == nil {
			t.Errorf("%s succeeded", what)
		}
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := s.Dev.Stats().WriteRequests; got != writes {
		t.Fatalf("refused changes wrote %d requests", got-writes)
	}
	if err := s.Change(); err != nil {
		t.Fatal(err)
	}
	if got := s.Dev.Stats().WriteRequests; got != writes || s.Dirty() {
		t.Fatalf("a change not yet committed wrote %d requests (%s %v)", got-writes, s.Flag, s.Dirty())
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if !s.Dirty() {
		t.Errorf("%s is not set once the change is written", s.Flag)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Dirty() {
		t.Errorf("%s is still set after Close", s.Flag)
	}
}
