// Command vklayers is built with -buildmode=c-shared into
// libVkLayer_vkgen.so, the one library hosting every vkgen layer of the
// project: one Go runtime per process, each layer reached through its own
// manifest's "functions" entry points. It hosts every layer package with a
// vkgen-layer.json: vkgen generate writes their blank imports into
// vkgen_layers.gen.go, and scripts/build-layers.sh (which also applies
// exports.map) copies the manifests of the packages imported here.
package main

func main() {}
