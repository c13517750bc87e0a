package main

import (
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"
)

// openInput opens a command's input file, - being standard input, with
// what it is (for output.inputs; none for a stdin that is no file).
func openInput(cmd *cobra.Command, path string) (io.ReadCloser, []fs.FileInfo, error) {
	if path == "-" {
		in := cmd.InOrStdin()
		var infos []fs.FileInfo
		if f, ok := in.(*os.File); ok {
			if fi, err := f.Stat(); err == nil {
				infos = append(infos, fi)
			}
		}
		return io.NopCloser(in), infos, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, []fs.FileInfo{fi}, nil
}

// inputName is how errors and titles name an input path.
func inputName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}
