// Package templates holds the text/template sources of vkgen's C, Go-glue and
// JSON outputs, embedded so the generator binary needs no files at run time.
// It owns only template text; the data fed to the templates is built by the
// generators in gen/ (gen/cdispatch, gen/layerstubs), which must not be
// duplicated here.
package templates

import "embed"

// FS holds every *.tmpl file of this directory.
//
//go:embed *.tmpl
var FS embed.FS
