package settings

import (
	"fmt"
	"os"
	"slices"
	"sync"
)

// The settings the library's owners registered, in registration order (Go's
// package initialisation order: deterministic for one build).
var (
	knownMu sync.Mutex
	known   []Def
	ownerOf = map[string]string{} // key → the owner that registered it
)

// Register declares, at init, the settings an owner reads: a layer (its
// generated glue registers its spec's settings under the layer's name) or a
// package that is no layer (layer/tracing, its settings.json). Every
// setting registered is resolved for whichever vkgen layer is enabled, so a
// key is known (not reported as unknown) whatever layer a user names. A key
// registered again by another owner keeps its first declaration and is
// reported: vkgen generate rejects that for the layers it generates.
func Register(owner string, defs []Def) {
	knownMu.Lock()
	defer knownMu.Unlock()
	for _, d := range defs {
		if first, dup := ownerOf[d.Key]; dup {
			fmt.Fprintf(os.Stderr, "vkgen: setting %s of %s ignored: %s declares it\n", d.Key, owner, first)
			continue
		}
		ownerOf[d.Key] = owner
		known = append(known, d)
	}
}

// Known is every setting registered so far: what the library reads.
func Known() []Def {
	knownMu.Lock()
	defer knownMu.Unlock()
	return slices.Clone(known)
}
