package layerstubs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// specError is a mistake in the spec's JSON itself, at a byte offset.
type specError struct {
	off int64
	msg string
}

// jsonFields are the JSON keys of a struct type's fields.
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
			out = append(out, name)
		}
	}
	return out
}

var (
	specFields = jsonFields(reflect.TypeFor[Spec]())
	extFields  = jsonFields(reflect.TypeFor[ExtensionSpec]())
	extElemRE  = regexp.MustCompile(`^(instance|device)_extensions\[[0-9]+\]$`)
)

// fieldsAt are the keys an object at path may hold (nil: not checked).
func fieldsAt(path string) []string {
	switch {
	case path == "":
		return specFields
	case extElemRE.MatchString(path):
		return extFields
	}
	return nil
}

// walkSpec reads the spec's JSON tokens and returns the byte offset of
// every value by its key path ("name", "device_extensions[1].name"; an
// unknown key's own offset), calling unknown for each key the spec does not
// define, with the keys it could have been.
func walkSpec(data []byte, unknown func(key string, known []string)) (map[string]int64, *specError) {
	dec := json.NewDecoder(bytes.NewReader(data))
	pos := map[string]int64{}
	next := func() int64 { // the offset of the next token
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
			off++
		}
		return off
	}
	var value func(path string) error
	value = func(path string) error {
		pos[path] = next()
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			known := fieldsAt(path)
			for dec.More() {
				off := next()
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := strings.TrimPrefix(path+"."+k.(string), ".")
				if err := value(key); err != nil {
					return err
				}
				if known != nil && !slices.Contains(known, k.(string)) {
					pos[key] = off
					unknown(key, known)
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := value(fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		default:
			return nil
		}
		_, err = dec.Token() // the closing delimiter
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 || bytes.TrimSpace(data)[0] != '{' {
		return pos, &specError{next(), "want a JSON object"}
	}
	err := value("")
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return pos, &specError{se.Offset, "invalid JSON: " + se.Error()}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return pos, &specError{int64(len(data)), "invalid JSON: unexpected end of file"}
	case err != nil:
		return pos, &specError{dec.InputOffset(), "invalid JSON: " + err.Error()}
	}
	return pos, nil
}
