package vol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// CopyFS copies the tree src (os.DirFS of a host folder, say) into the
// folder dst of v (a volume path: "" or "/" for the root), making dst and
// each folder it needs and writing each file with its size and
// modification time. Folders that exist already are merged into; a file
// never replaces anything.
//
// CopyFS looks at the whole of src first and refuses, before it changes
// anything, when a file of src names a file or folder that exists in v
// (as v compares names, without case) or a folder of src names a file
// (an *fs.PathError wrapping fs.ErrExist), when two names of src are one
// name in v (the same), when a name is one v cannot store (see
// NameRule: a *NameError), when a file is too large for the file system
// (ErrFileTooLarge), and when src holds anything but regular files and
// folders: a symbolic link to a file is copied as the file, one to a
// folder is refused, as are devices, pipes and sockets.
//
// The files are written as Create writes them: they reach the device on
// v's next Commit or Close, in the crash-safe order. An error part way
// (a full volume, a read error) drops the file being written; the files
// copied before it are recorded by the next Commit or Close.
func CopyFS(v Volume, dst string, src fs.FS) error {
	return CopyFSContext(context.Background(), v, dst, src)
}

// CopyFSContext is CopyFS, cancelled by ctx: it stops between two reads
// of a file's data or two entries of src, drops the file it was writing
// (as an error part way does) and returns an error wrapping ctx's
// (errors.Is(err, context.Canceled)); the files and folders made before
// stay, recorded by the next Commit or Close. A context cancelled before
// the call changes nothing.
func CopyFSContext(ctx context.Context, v Volume, dst string, src fs.FS) error {
	if err := fsutil.Cancelled(ctx); err != nil {
		return err
	}
	dst = fsutil.CleanPath(dst)
	rule := Names(v)
	for _, el := range strings.Split(dst, "/") {
		if err := rule.Check(el); el != "." && el != "" && err != nil {
			return &fs.PathError{Op: "copy", Path: dst, Err: err}
		}
	}
	seen := map[string]bool{}
	if err := fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := path.Join(dst, name)
		if name != "." {
			if err := rule.Check(path.Base(name)); err != nil {
				return &fs.PathError{Op: "copy", Path: to, Err: err}
			}
		}
		if !d.IsDir() {
			if _, err := copySource(v, src, name); err != nil {
				return err
			}
		}
		key := v.FoldName(to)
		if seen[key] {
			return &fs.PathError{Op: "copy", Path: to, Err: fs.ErrExist}
		}
		seen[key] = true
		fi, err := v.Stat(to)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		} else if d.IsDir() && fi.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "copy", Path: to, Err: fs.ErrExist}
	}); err != nil {
		return err
	}
	return fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		} else if err := fsutil.Cancelled(ctx); err != nil {
			return err
		} else if d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			return v.MkdirAll(path.Join(dst, name), info.ModTime())
		}
		info, err := copySource(v, src, name)
		if err != nil {
			return err
		}
		return copyFile(ctx, v, path.Join(dst, name), src, name, info)
	})
}

// copySource is what the file name of src holds (through a symbolic
// link), or why CopyFS cannot copy it to v.
func copySource(v Volume, src fs.FS, name string) (fs.FileInfo, error) {
	info, err := fs.Stat(src, name)
	if err != nil {
		return nil, err
	} else if info.IsDir() {
		return nil, fmt.Errorf("vol: CopyFS: %s is a link to a folder, which CopyFS does not follow", name)
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("vol: CopyFS: %s is not a regular file or folder (%v)", name, info.Mode().Type())
	} else if err := FileSizeError(v, info.Size()); err != nil {
		return nil, fmt.Errorf("vol: CopyFS: %s (%d bytes): %w", name, info.Size(), err)
	}
	return info, nil
}

// copyFile copies the file name of src to the volume path to.
func copyFile(ctx context.Context, v Volume, to string, src fs.FS, name string, info fs.FileInfo) error {
	f, err := src.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := v.Create(to, info.Size(), info.ModTime())
	if err != nil {
		return err
	}
	defer w.Abort() // drops a file that fails half way; nothing after Close
	if _, err := io.Copy(w, ContextReader(ctx, f)); err != nil {
		return err
	}
	return w.Close()
}
