package registry

// byName maps each item's name and every other name it answers to (aliases,
// merged feature names) to the item.
func byName[T any](items []T, names func(T) (string, []string)) map[string]T {
	m := make(map[string]T, len(items))
	for _, it := range items {
		name, others := names(it)
		m[name] = it
		for _, o := range others {
			m[o] = it
		}
	}
	return m
}

func (r *Registry) index() {
	r.handleByName = byName(r.Handles, func(h *Handle) (string, []string) { return h.Name, h.Aliases })
	r.enumByName = byName(r.Enums, func(e *Enum) (string, []string) { return e.Name, e.Aliases })
	r.valueByName = map[string]*EnumValue{}
	r.valueEnum = map[string]*Enum{}
	for _, e := range r.Enums {
		for _, v := range e.Values {
			r.valueByName[v.Name] = v
			r.valueEnum[v.Name] = e
		}
	}
	r.commandByName = byName(r.Commands, func(c *Command) (string, []string) { return c.Name, c.Aliases })
	r.featureByName = byName(r.Features, func(f *Feature) (string, []string) { return f.Name, f.Merged })
	r.extByName = byName(r.Extensions, func(x *Extension) (string, []string) { return x.Name, nil })
	r.structByName = byName(r.Structs, func(s *Struct) (string, []string) { return s.Name, s.Aliases })
}

// Handle returns the handle named name or one of its aliases, nil if none.
func (r *Registry) Handle(name string) *Handle { return r.handleByName[name] }

// Enum returns the enum (or bitmask, or "API Constants") named name or one
// of its aliases, nil if none.
func (r *Registry) Enum(name string) *Enum { return r.enumByName[name] }

// EnumValue returns the enumerant named name and the enum holding it.
func (r *Registry) EnumValue(name string) (*Enum, *EnumValue) {
	return r.valueEnum[name], r.valueByName[name]
}

// Command returns the command named name or aliased as name, nil if none.
func (r *Registry) Command(name string) *Command { return r.commandByName[name] }

// Feature returns the feature named name (merged internal feature names
// resolve to the public feature), nil if none.
func (r *Registry) Feature(name string) *Feature { return r.featureByName[name] }

// Extension returns the extension named name, nil if it is not in the model.
func (r *Registry) Extension(name string) *Extension { return r.extByName[name] }
