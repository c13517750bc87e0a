package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// output is a file a command writes. Every output of vkgen is written
// through it: whole or not at all (a temporary file in the same directory,
// renamed into place), never through a symbolic link (the rename replaces
// the link itself), never over one of the command's inputs, and over an
// existing file only when replace allows it.
type output struct {
	path string
	mode fs.FileMode
	// replace allows replacing an existing regular file or symbolic link
	// (--force; generate replaces its own files).
	replace bool
	// inputs are the files the command reads, which it must not replace.
	inputs []fs.FileInfo
}

// check refuses what write would refuse, so that a command can fail before
// doing its work.
func (o *output) check() error {
	fi, err := os.Lstat(o.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	target, _ := os.Stat(o.path) // what a symbolic link names, nil when dangling
	for _, in := range o.inputs {
		if os.SameFile(fi, in) || (target != nil && os.SameFile(target, in)) {
			return fmt.Errorf("%s is an input of this command; refusing to write over it", o.path)
		}
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0 && !o.replace:
		dest, _ := os.Readlink(o.path)
		return fmt.Errorf("%s is a symbolic link (to %s); refusing to write through it (--force replaces the link itself)", o.path, dest)
	case fi.Mode()&fs.ModeSymlink == 0 && !fi.Mode().IsRegular():
		return fmt.Errorf("%s exists and is not a regular file; refusing to replace it", o.path)
	case !o.replace:
		return fmt.Errorf("%s exists; refusing to replace it without --force", o.path)
	}
	return nil
}

// write writes data to o.path with o.mode.
func (o *output) write(data []byte) error {
	if err := o.check(); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(o.path), "."+filepath.Base(o.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", o.path, err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), o.mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", o.path, err)
	}
	return nil
}
