package fat

import (
	"errors"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// DamageError is how a walk over the paths a command touches reports damage
// it found there: a chain that links to a free, bad or missing cluster, or
// loops. Writers stop on it rather than build on the damage (freeing or
// extending a broken chain could free or hand out clusters another file
// holds); the message says how to find and repair it. It wraps the problem,
// which wraps ErrCorrupt.
type DamageError struct{ Err error }

func (e *DamageError) Error() string {
	return e.Err.Error() + " " + fsutil.DamageHint
}

func (e *DamageError) Unwrap() error { return e.Err }

// damaged wraps err, found walking the volume, in a DamageError once.
func damaged(err error) error {
	var de *DamageError
	if err == nil || errors.As(err, &de) {
		return err
	}
	return &DamageError{Err: err}
}
