// Package vkgen is the root of the vkgen module: a Go toolkit for Vulkan
// layer authors (see README.md and docs/architecture.md). This file holds
// the module's one generation entry point: `go generate ./...` runs
// `vkgen generate`, which writes every generated file of the tree from one
// registry (docs/generating.md says which).
package vkgen

//go:generate go run ./cmd/vkgen generate --quiet
