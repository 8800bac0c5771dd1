package fsutil

import (
	"errors"
	"io/fs"
	"testing"
)

// ChangeEntry begins the change and settles before the lookup, stops at a
// refused begin, and refuses the root (a nil record).
func TestChangeEntry(t *testing.T) {
	type dir struct{}
	type rec struct{ name string }
	d, file := &dir{}, &rec{"a"}
	refused := errors.New("read-only")
	for _, c := range []struct {
		name     string
		startErr error
		want     error
		lookups  int
	}{
		{"a", nil, nil, 1},
		{"a", refused, refused, 0},
		{"/", nil, fs.ErrPermission, 1},
		{"missing", nil, fs.ErrNotExist, 1},
	} {
		started, settled, lookups := false, false, 0
		begin := func() error { started = true; return c.startErr }
		settle := func() error { settled = started; return nil }
		lookup := func(op, name string) (*dir, *rec, error) {
			lookups++
			if !settled {
				t.Errorf("%s: lookup before begin and settle", c.name)
			}
			switch name {
			case "a":
				return d, file, nil
			case "/":
				return nil, nil, nil
			}
			return nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		gd, gr, err := ChangeEntry("chattr", c.name, begin, settle, lookup)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) || lookups != c.lookups {
			t.Errorf("%s: %v after %d lookups, want %v after %d", c.name, err, lookups, c.want, c.lookups)
		}
		if err == nil && (gd != d || gr != file) {
			t.Errorf("%s: %v %v, want the entry", c.name, gd, gr)
		}
	}
}
