package voltest

import (
	"testing"
	"time"

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

// DirtyVolume is what DirtyAtFirstWrite asks of a codec's volume: A is
// its attribute type, O its Fallocate options and R what Fallocate
// returns.
type DirtyVolume[A, O, R any] interface {
	Device() *fio.Device
	Mkdir(name string, mtime time.Time) error
	Remove(name string) error
	Rename(oldName, newName string) error
	SetAttr(name string, set, clear A) error
	Fallocate(name string, length int64, opts O) (R, error)
	Commit() error
	Close() error
}

// DirtyFlag is the dirty flag DirtyAtFirstWrite follows.
type DirtyFlag struct {
	Name  string      // the flag's name in messages
	Dirty func() bool // the flag as the device holds it
	// Refuse holds changes, besides those every codec refuses, that the
	// volume must refuse, by what they are.
	Refuse map[string]func() error
}

// DirtyAtFirstWrite checks the dirty flag's life over a session, the same
// on both codecs, on v, opened on a volume whose tree holds d/e (hidden is
// the codec's hidden attribute): refused changes write nothing at all, a
// change not yet committed (setting hidden on d) writes nothing either,
// and the flag is on the device once the change is committed and off
// after Close.
func DirtyAtFirstWrite[A, O, R any](t *testing.T, v DirtyVolume[A, O, R], hidden A, flag DirtyFlag) {
	t.Helper()
	var none A
	var opts O
	refuse := []struct {
		what string
		f    func() error
	}{
		{"Mkdir of an existing name", func() error { return v.Mkdir("d", time.Unix(0, 0)) }},
		{"Remove of a non-empty dir", func() error { return v.Remove("d") }},
		{"Remove of a missing name", func() error { return v.Remove("nope") }},
		{"Rename of a missing name", func() error { return v.Rename("nope", "x") }},
		{"Rename into itself", func() error { return v.Rename("d", "d/e/x") }},
		{"SetAttr of a missing name", func() error { return v.SetAttr("nope", hidden, none) }},
		{"Fallocate past the free space", func() error { _, err := v.Fallocate("big", 1<<30, opts); return err }},
	}
	for what, f := range flag.Refuse {
		refuse = append(refuse, struct {
			what string
			f    func() error
		}{what, f})
	}
	dev := v.Device()
	writes := dev.Stats().WriteRequests
	for _, r := range refuse {
		if err := r.f(); err == nil {
			t.Errorf("%s succeeded", r.what)
		}
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := dev.Stats().WriteRequests; got != writes {
		t.Fatalf("refused changes wrote %d requests", got-writes)
	}
	if err := v.SetAttr("d", hidden, none); err != nil {
		t.Fatal(err)
	}
	if got := dev.Stats().WriteRequests; got != writes || flag.Dirty() {
		t.Fatalf("a change not yet committed wrote %d requests (%s %v)", got-writes, flag.Name, flag.Dirty())
	}
	if err := v.Commit(); err != nil {
		t.Fatal(err)
	}
	if !flag.Dirty() {
		t.Errorf("%s is not set once the change is written", flag.Name)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if flag.Dirty() {
		t.Errorf("%s is still set after Close", flag.Name)
	}
}
