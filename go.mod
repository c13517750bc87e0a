module github.com/vkgen/vkgen

go 1.26.8

require (
	github.com/beevik/etree v1.8.1 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/tools v0.52.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
