package settings

// ManifestSettings returns the layer manifest's "features": {"settings": [...]}
// entries for defs, in the form Vulkan Configurator reads (key, env, label,
// description, type, default, platforms; range for INT).
func ManifestSettings(layer string, defs []Def) []map[string]any {
	var out []map[string]any
	for _, d := range defs {
		s := map[string]any{
			"key":         d.Key,
			"env":         EnvNames(layer, d.Key)[1],
			"label":       d.Label,
			"description": d.Description,
			"type":        string(d.Type),
			"default":     d.Default,
			"platforms":   []string{"LINUX"},
		}
		if d.Type == Int && (d.Min != 0 || d.Max != 0) {
			s["range"] = map[string]int64{"min": d.Min, "max": d.Max}
		}
		out = append(out, s)
	}
	return out
}
