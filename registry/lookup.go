package registry

func (r *Registry) index() {
	r.handleByName = make(map[string]*Handle, len(r.Handles))
	for _, h := range r.Handles {
		r.handleByName[h.Name] = h
		for _, a := range h.Aliases {
			r.handleByName[a] = h
		}
	}
	r.enumByName = make(map[string]*Enum, len(r.Enums))
	r.valueByName = map[string]*EnumValue{}
	r.valueEnum = map[string]*Enum{}
	for _, e := range r.Enums {
		r.enumByName[e.Name] = e
		for _, a := range e.Aliases {
			r.enumByName[a] = e
		}
		for _, v := range e.Values {
			r.valueByName[v.Name] = v
			r.valueEnum[v.Name] = e
		}
	}
	r.commandByName = make(map[string]*Command, len(r.Commands))
	for _, c := range r.Commands {
		r.commandByName[c.Name] = c
		for _, a := range c.Aliases {
			r.commandByName[a] = c
		}
	}
	r.featureByName = make(map[string]*Feature, len(r.Features))
	for _, f := range r.Features {
		r.featureByName[f.Name] = f
		for _, m := range f.Merged {
			r.featureByName[m] = f
		}
	}
	r.extByName = make(map[string]*Extension, len(r.Extensions))
	for _, x := range r.Extensions {
		r.extByName[x.Name] = x
	}
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
