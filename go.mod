module github.com/vkgen/vkgen

go 1.26.8

require (
	github.com/beevik/etree v1.8.1
	github.com/dave/jennifer v1.7.1
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/klauspost/compress v1.20.4
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	golang.org/x/tools v0.52.0
	google.golang.org/protobuf v1.36.12
	mvdan.cc/sh/v3 v3.14.1
)

require github.com/inconshreveable/mousetrap v1.1.0 // indirect
