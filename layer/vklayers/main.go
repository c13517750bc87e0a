// Command vklayers is built with -buildmode=c-shared into
// libVkLayer_vkgen.so, the one library hosting every vkgen layer of the
// project: one Go runtime per process, each layer reached through its own
// manifest's "functions" entry points. It owns only the list of hosted
// layers; add a layer by blank-importing its package here and copying its
// manifest in scripts/build-layers.sh. Build with scripts/build-layers.sh,
// which also applies exports.map.
package main

import (
	_ "github.com/vkgen/vkgen/layer/debugmarker"
	_ "github.com/vkgen/vkgen/layer/example"
	_ "github.com/vkgen/vkgen/layer/memreport"
)

func main() {}
