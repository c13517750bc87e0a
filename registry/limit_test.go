package registry

import (
	"errors"
	"strings"
	"testing"
)

// Parse stops reading a stream at the limit instead of holding all of it.
func TestParseSizeLimit(t *testing.T) {
	src := "<registry>" + strings.Repeat(" ", 100) + "</registry>"
	_, err := Parse(strings.NewReader(src), "stream.xml", WithMaxSize(64))
	var se *SizeError
	if !errors.As(err, &se) || se.File != "stream.xml" || se.Size != -1 || se.Limit != 64 ||
		err.Error() != "registry: stream.xml: larger than the registry size limit of 64 bytes (0.0 MiB)" {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := Parse(strings.NewReader(src), "stream.xml", WithMaxSize(int64(len(src)))); errors.As(err, &se) {
		t.Errorf("at the limit: %v", err)
	}
}
