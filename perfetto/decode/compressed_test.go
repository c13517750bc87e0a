package decode_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/perfetto/decode"
	"google.golang.org/protobuf/encoding/protowire"
)

// frames splits a trace into its packets' frames (tag, length and body).
func frames(t testing.TB, data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		_, _, n := protowire.ConsumeField(data)
		if n < 0 {
			t.Fatalf("malformed trace: %v", protowire.ParseError(n))
		}
		out = append(out, data[:n])
		data = data[n:]
	}
	return out
}

// deflated is what traced writes with compression_type DEFLATE: the
// packets in groups of per, each group a zlib stream in a packet's
// compressed_packets (field 50).
func deflated(t testing.TB, data []byte, per int) []byte {
	fs := frames(t, data)
	var out []byte
	var z bytes.Buffer
	w := zlib.NewWriter(&z) // one for all: each new one allocates and clears hundreds of KiB
	for i := 0; i < len(fs); i += per {
		z.Reset()
		w.Reset(&z)
		for _, f := range fs[i:min(i+per, len(fs))] {
			w.Write(f)
		}
		w.Close()
		out = protowire.AppendBytes(protowire.AppendTag(out, 1, protowire.BytesType), compressedPacket(z.Bytes()))
	}
	return out
}

func compressedPacket(z []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, 50, protowire.BytesType), z)
}

// packets reads every packet with NextRaw, decoded with Next's state, and
// the positions NextRaw gives them.
func packets(t testing.TB, data []byte) (pkts []decode.Packet, pos []int64) {
	t.Helper()
	want, err := decode.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	r := decode.NewReader(bytes.NewReader(data), "t")
	var raw decode.Raw
	for {
		_, _, err := r.NextRaw(&raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		pos = append(pos, raw.Pos)
	}
	return want.Packets, pos
}

// A trace whose packets traced compressed, or that was gzip'd whole, reads
// as the plain trace; NextRaw's positions grow with every packet.
func TestCompressedTrace(t *testing.T) {
	data := rawTrace(t)
	want, wantPos := packets(t, data)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(deflated(t, data, 7))
	w.Close()
	for what, in := range map[string][]byte{"deflated packets": deflated(t, data, 7), "one group": deflated(t, data, len(want)), "gzip": gzipped(data), "gzip of deflated packets": gz.Bytes()} {
		got, pos := packets(t, in)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d packets differ from the plain trace's %d", what, len(got), len(want))
		}
		for i := 1; i < len(pos); i++ {
			if pos[i] <= pos[i-1] {
				t.Fatalf("%s: packet %d at position %d after %d", what, i, pos[i], pos[i-1])
			}
		}
		if what == "gzip" && !reflect.DeepEqual(pos, wantPos) {
			t.Errorf("gzip: positions differ from the plain trace's")
		}
	}
}

func gzipped(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// A compressed packet that inflates past decode.MaxInflatedBytes (a zip
// bomb) is refused without inflating the rest; damage when skipped.
func TestCompressedBomb(t *testing.T) {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	zeros := make([]byte, 1<<20)
	for range decode.MaxInflatedBytes>>20 + 1 {
		w.Write(zeros)
	}
	w.Close()
	// After a stamped packet (timestamp 1, sequence 2): the input is a
	// trace. Built by hand, not recorded, the test starts no goroutine and
	// runs without the race detector (scripts/race-packages.sh), which made
	// its 64 MiB of inflating 6 times dearer.
	stamped := []byte{0x0a, 0x04, 0x08, 0x01, 0x50, 0x02}
	data := append(stamped, protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), compressedPacket(z.Bytes()))...)
	_, err := decode.Decode(data)
	if err == nil || !strings.Contains(err.Error(), "inflate to more than") {
		t.Errorf("bomb: %v", err)
	}
}

// Input that is no trace is named for what it is.
func TestNotTraceKinds(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{"", "the input is empty"},
		{"\x28\xb5\x2f\xfd\x04\x00", "zstd"},
		{"\xfd7zXZ\x00\x00", "xz"},
		{"PK\x03\x04rest", "zip"},
		{"\x7fELF\x02\x01\x01", "ELF"},
		{"  <!DOCTYPE html><html>", "HTML"},
		{"{\"traceEvents\": []}", "JSON"},
		{"\nhello, world: this is text\n", "text"},
		{string(gzipped([]byte("just text"))), "gzip-compressed text"},
		{string(gzipped(nil)), "the input is empty"},
		{"\x1f\x8b\x08garbage", "gzip-compressed data whose header"},
	} {
		_, err := decode.ReadFile(writeTemp(t, c.in))
		var de *decode.Error
		if !errors.Is(err, decode.ErrNotTrace) || !strings.Contains(err.Error(), c.want) || !errors.As(err, &de) {
			t.Errorf("%q: %v, want not a trace: %s", c.in, err, c.want)
		}
	}
}

func writeTemp(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
