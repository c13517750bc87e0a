package perfettotools

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// QueryRaw returns the service's state, a TracingServiceState message
// (perfetto --query-raw); the test decodes the fields it needs.
func (s *Service) QueryRaw(t testing.TB) []byte {
	t.Helper()
	b, err := s.queryRaw()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (s *Service) queryRaw() ([]byte, error) {
	cmd := s.Perfetto("--query-raw")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("perfetto --query-raw: %v\n%s", err, errb.String())
	}
	return out.Bytes(), nil
}

// WaitState queries the service's state until cond holds for it and
// returns that state; after 30 s it fails t, naming what it waited for.
// Tests wait on the service's state this way, never for a fixed time.
func (s *Service) WaitState(t testing.TB, what string, cond func(state []byte) bool) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := s.queryRaw()
		if err != nil {
			t.Fatal(err)
		}
		if cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("traced: timed out waiting for %s\n%s", what, s.Log())
		}
		time.Sleep(10 * time.Millisecond) // the polling period, not a synchronisation
	}
}
