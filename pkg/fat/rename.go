package fat

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
)

// ErrIntoItself is wrapped by Rename's error for moving a directory into
// itself or one of its subdirectories.
var ErrIntoItself = errors.New("fat: cannot move a directory into itself")

// Rename moves or renames oldName to newName on the volume without copying
// data: the entry moves, the clusters stay. It follows rename(2): newName's
// parent must exist; an existing file at newName is replaced (its clusters
// are freed once the new entry is on disk), an existing empty directory is
// replaced by a directory; a directory cannot replace a file or vice versa,
// nor move into itself. Renaming to a name that differs only in case (or
// to the name itself) rewrites the entry in place. A moved directory's ".."
// entry is updated to name its new parent (0 for the root).
func (v *Volume) Rename(oldName, newName string) error {
	if err := v.begin(); err != nil {
		return err
	}
	oldPath, newPath := "/"+cleanPath(oldName), "/"+cleanPath(newName)
	od, r, err := v.lookup("rename", oldName)
	if err != nil {
		return err
	}
	if r == nil {
		return &fs.PathError{Op: "rename", Path: oldPath, Err: fs.ErrPermission}
	}
	nd, base, err := v.parentOf("rename", newName)
	if err != nil {
		return err
	}
	pathErr := func(err error) error {
		return &os.LinkError{Op: "rename", Old: oldPath, New: newPath, Err: err}
	}
	if base == "." || base == ".." {
		return pathErr(fs.ErrInvalid)
	}
	if namesDir(newName) && !r.Entry.IsDir() {
		return pathErr(ErrNotDir)
	}
	if r.Entry.IsDir() {
		inside, err := v.isWithin(nd, r.Entry.Cluster)
		if err != nil {
			return pathErr(err)
		}
		if inside {
			return pathErr(ErrIntoItself)
		}
	}
	target := nd.lookup(base)
	if target == r {
		if base == r.Name {
			return nil
		}
		target = nil // a change of case only
	}
	if target != nil {
		if err := v.checkReplace(r, target); err != nil {
			return pathErr(err)
		}
	}
	if err := ValidateLongName(base); err != nil {
		return pathErr(err)
	}
	var oldChain []Cluster
	if target != nil {
		if oldChain, err = chainOrNil(v, target.Entry.Cluster); err != nil {
			return pathErr(err)
		}
		if target.Entry.IsDir() {
			delete(v.dirs, target.Entry.Cluster)
			delete(v.dirtyDirs, target.Entry.Cluster)
		}
		nd.remove(target)
	}
	// Remove first, so that a change of case finds its own short name free;
	// put the old entry back if the new one cannot be added.
	saved := *r
	od.remove(r)
	e := saved.Entry
	nr, err := nd.add(base, e)
	if err != nil {
		errs := []error{err}
		if _, rerr := od.add(saved.Name, saved.Entry); rerr != nil {
			errs = append(errs, rerr)
		}
		if target != nil {
			if _, rerr := nd.add(target.Name, target.Entry); rerr != nil {
				errs = append(errs, rerr)
			}
		}
		return pathErr(errors.Join(errs...))
	}
	if nr.Entry.IsDir() && od != nd {
		if err := v.setDotDot(nr.Entry.Cluster, nd); err != nil {
			return pathErr(err)
		}
	}
	if len(oldChain) > 0 {
		v.pendingFree = append(v.pendingFree, oldChain)
	}
	return nil
}

// checkReplace says whether r may replace target, as rename(2) decides.
func (v *Volume) checkReplace(r, target *Record) error {
	switch {
	case target.Entry.IsLabel():
		return fs.ErrExist
	case r.Entry.IsDir() && !target.Entry.IsDir():
		return ErrNotDir
	case !r.Entry.IsDir() && target.Entry.IsDir():
		return ErrIsDir
	case target.Entry.IsDir():
		d, err := v.dirOf(target)
		if err != nil {
			return err
		}
		if len(d.list()) > 0 {
			return ErrNotEmpty
		}
	}
	return nil
}

// isWithin reports whether directory d is the directory whose first cluster
// is c or lies below it, by following ".." entries up to the root (at most
// as many steps as the volume has clusters).
func (v *Volume) isWithin(d *dir, c Cluster) (bool, error) {
	if c == 0 {
		return true, nil // an entry claiming the root: refuse to move it
	}
	for steps := uint32(0); steps <= v.layout.Clusters; steps++ {
		if d.isRoot() {
			return false, nil
		}
		if d.first == c {
			return true, nil
		}
		var up Cluster
		found := false
		for _, r := range d.recs {
			if r != nil && r.Short == DotDotName {
				up, found = r.Entry.Cluster, true
				break
			}
		}
		if !found {
			return false, &fs.PathError{Op: "rename", Path: "cluster " + strconv.FormatUint(uint64(d.first), 10), Err: errNoDotDot}
		}
		var err error
		if up == 0 {
			d, err = v.rootDir()
		} else {
			d, err = v.loadDir(up)
		}
		if err != nil {
			return false, err
		}
	}
	return false, errDotDotLoop
}

var (
	errNoDotDot   = &FormatError{Structure: "directory", Field: "..", Offset: DirEntrySize, Msg: "entry missing", Err: ErrCorrupt}
	errDotDotLoop = &FormatError{Structure: "directory", Field: "..", Offset: DirEntrySize, Msg: "entries form a loop", Err: ErrCorrupt}
)

// setDotDot points the ".." entry of the directory at cluster c at parent.
func (v *Volume) setDotDot(c Cluster, parent *dir) error {
	d, err := v.loadDir(c)
	if err != nil {
		return err
	}
	up := parent.first
	if parent.isRoot() {
		up = 0
	}
	for _, r := range d.recs {
		if r != nil && r.Short == DotDotName {
			if r.Entry.Cluster != up {
				r.Entry.Cluster = up
				d.update(r)
			}
			return nil
		}
	}
	return errNoDotDot
}
