package tracing

import (
	_ "embed"

	"github.com/vkgen/vkgen/layer/settings"
)

// settingsJSON declares the tracing settings, one setup per process shared
// by every vkgen layer (config.go reads them). A layer whose spec names
// this file in settings_include lists them in its manifest for Vulkan
// Configurator; vkgen generate reads the same file.
//
//go:embed settings.json
var settingsJSON []byte

// settingsOwner is who Register is told declares the tracing settings.
const settingsOwner = "layer/tracing"

func init() {
	defs, err := settings.Decode(settingsJSON)
	if err != nil { // a build defect: vkgen generate and every test of this package reject it
		panic("layer/tracing/settings.json: " + err.Error())
	}
	settings.Register(settingsOwner, defs)
}
