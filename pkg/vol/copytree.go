package vol

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// CopyFS copies the tree src (os.DirFS of a host folder, say) into the
// folder dst of v ("" or "/" for the root), making dst and each folder
// it needs and writing each file with its size and modification time.
// Folders that exist already are merged into; a file never replaces one:
// if any file of src names a file or folder that exists in v (as v
// compares names, without case), or a folder of src names a file, CopyFS
// refuses with an *fs.PathError (fs.ErrExist) before it changes
// anything, as it does for two names of src that are one name in v. Only regular files and folders are copied (a symbolic link
// src follows is copied as what it names); anything else is an error.
//
// The files are written as Create writes them: they reach the device on
// v's next Commit or Close, in the crash-safe order. An error part way
// (a full volume, a read error) drops the file being written; the files
// copied before it are recorded by the next Commit or Close.
func CopyFS(v Volume, dst string, src fs.FS) error {
	dst = fsutil.CleanPath(dst)
	seen := map[string]bool{}
	if err := fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		key := v.FoldName(path.Join(dst, name))
		if seen[key] {
			return &fs.PathError{Op: "copy", Path: path.Join(dst, name), Err: fs.ErrExist}
		}
		seen[key] = true
		fi, err := v.Stat(path.Join(dst, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		} else if d.IsDir() && fi.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "copy", Path: path.Join(dst, name), Err: fs.ErrExist}
	}); err != nil {
		return err
	}
	return fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := path.Join(dst, name)
		info, err := fs.Stat(src, name) // follows a symbolic link
		if err != nil {
			return err
		} else if info.IsDir() {
			return v.MkdirAll(to, info.ModTime())
		} else if !info.Mode().IsRegular() {
			return fmt.Errorf("vol: CopyFS: %s is not a regular file or folder (%v)", name, info.Mode().Type())
		}
		return copyFile(v, to, src, name, info)
	})
}

// copyFile copies the file name of src to the volume path to.
func copyFile(v Volume, to string, src fs.FS, name string, info fs.FileInfo) error {
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
	if _, err := io.Copy(w, f); err != nil {
		return err
	}
	return w.Close()
}
