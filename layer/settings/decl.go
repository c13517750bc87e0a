package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
)

var keyRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// UnmarshalJSON reads a Def as settings files and layer specs write it:
// {"key", "label", "description", "type", "default", "min", "max"}, the
// default a JSON value of the type (a missing one is the type's zero).
// Unknown fields are errors; Check says whether the Def makes sense.
func (d *Def) UnmarshalJSON(data []byte) error {
	var j struct {
		Key         string          `json:"key"`
		Label       string          `json:"label"`
		Description string          `json:"description"`
		Type        Type            `json:"type"`
		Default     json.RawMessage `json:"default"`
		Min         int64           `json:"min"`
		Max         int64           `json:"max"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return err
	}
	*d = Def{Key: j.Key, Label: j.Label, Description: j.Description, Type: j.Type, Min: j.Min, Max: j.Max}
	var err error
	switch j.Type {
	case Bool:
		d.Default, err = decodeDefault[bool](j.Default)
	case Int:
		d.Default, err = decodeDefault[int64](j.Default)
	default: // String, SaveFile; another type is Check's to report
		d.Default, err = decodeDefault[string](j.Default)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		te.Field = "default" // the type says what it must be
	}
	return err
}

func decodeDefault[T any](raw json.RawMessage) (T, error) {
	var v T
	if len(raw) == 0 {
		return v, nil
	}
	err := json.Unmarshal(raw, &v)
	return v, err
}

// Check reports what makes d unusable, naming the field at fault ("key",
// "type", "default", "min"...); field is "" when d is good.
func (d Def) Check() (field string, err error) {
	switch {
	case !keyRE.MatchString(d.Key):
		return "key", fmt.Errorf("setting key %q is not lower_snake_case", d.Key)
	case d.Label == "":
		return "label", fmt.Errorf("setting %s: label is empty", d.Key)
	case d.Description == "":
		return "description", fmt.Errorf("setting %s: description is empty", d.Key)
	case !slices.Contains([]Type{Bool, Int, String, SaveFile}, d.Type):
		return "type", fmt.Errorf("setting %s: type %q is none of BOOL, INT, STRING, SAVE_FILE", d.Key, d.Type)
	case d.Type != Int && d.Min != 0:
		return "min", fmt.Errorf("setting %s: min and max bound only an INT", d.Key)
	case d.Type != Int && d.Max != 0:
		return "max", fmt.Errorf("setting %s: min and max bound only an INT", d.Key)
	case d.Min > d.Max:
		return "min", fmt.Errorf("setting %s: min %d is above max %d", d.Key, d.Min, d.Max)
	}
	want := map[Type]string{Bool: "bool", Int: "int64"}[d.Type]
	if want == "" {
		want = "string"
	}
	if got := fmt.Sprintf("%T", d.Default); got != want {
		return "default", fmt.Errorf("setting %s: default %v is a %s, want a %s", d.Key, d.Default, got, want)
	}
	if d.Type == Int {
		if _, err := checkRange(d, d.Default.(int64)); err != nil {
			return "default", fmt.Errorf("setting %s: default %v", d.Key, err)
		}
	}
	return "", nil
}

// File is a settings file: what an owner that is no layer (package
// layer/tracing) declares, and what a layer spec's settings_include names.
type File struct {
	Settings []Def `json:"settings"`
}

// Decode reads and checks a settings file ({"settings": [Def...]}).
func Decode(data []byte) ([]Def, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	for _, d := range f.Settings {
		if _, err := d.Check(); err != nil {
			return nil, err
		}
	}
	return f.Settings, nil
}
