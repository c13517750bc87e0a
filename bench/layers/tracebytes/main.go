// Command tracebytes prints what a Perfetto trace file's bytes are spent on:
// its packets and bytes; per field of TracePacket (and of the TrackEvent in
// it, as "track_event.N") the bytes its tags, lengths and contents take; and
// per kind of packet ("kind instant VulkanMemoryAllocation", "kind
// counter", "kind raw VkDebugUtilsObjectName", ...) the bytes of its
// packets, framing included: each divided by ITERATIONS when given
// (bench/layers/tracebytes.sh). It reads plain packets: a compressed
// trace is refused.
//
// Usage: go run ./bench/layers/tracebytes TRACE [ITERATIONS]
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	"github.com/vkgen/vkgen/perfetto/decode"
	"google.golang.org/protobuf/encoding/protowire"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: tracebytes TRACE [ITERATIONS]")
		os.Exit(2)
	}
	per := 1.0
	if len(os.Args) == 3 {
		n, err := strconv.Atoi(os.Args[2])
		if err != nil || n <= 0 {
			fmt.Fprintln(os.Stderr, "tracebytes: ITERATIONS must be a positive number")
			os.Exit(2)
		}
		per = float64(n)
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracebytes:", err)
		os.Exit(1)
	}
	t, err := tally(b)
	if err == nil {
		err = kinds(b, t.fields)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracebytes: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Printf("bytes %.1f\npackets %.2f\n", float64(len(b))/per, float64(t.packets)/per)
	keys := make([]string, 0, len(t.fields))
	for k := range t.fields {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return t.fields[keys[i]] > t.fields[keys[j]] })
	for _, k := range keys {
		fmt.Printf("%s %.1f\n", k, float64(t.fields[k])/per)
	}
}

// fieldCompressedPackets is TracePacket.compressed_packets.
const fieldCompressedPackets = 50

type totals struct {
	packets int
	fields  map[string]int // bytes per field name
}

// tally walks Trace.packet (field 1) and each packet's fields; a packet's
// framing (its tag and length) counts as "framing".
func tally(b []byte) (totals, error) {
	t := totals{fields: map[string]int{}}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return t, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return t, protowire.ParseError(m)
		}
		if num == 1 && typ == protowire.BytesType {
			pkt, k := protowire.ConsumeBytes(b[n:])
			if f, _, _ := protowire.ConsumeTag(pkt); f == fieldCompressedPackets {
				return t, errors.New("compressed packets: the breakdown reads plain ones (record with VK_VKGEN_TRACE_COMPRESS=0)")
			}
			t.packets++
			t.fields["framing"] += n + k - len(pkt)
			if err := fields(pkt, "", t.fields); err != nil {
				return t, err
			}
		} else {
			t.fields["other"] += n + m
		}
		b = b[n+m:]
	}
	return t, nil
}

// fields adds the bytes of each field of msg under prefix+number, looking
// into TrackEvent (TracePacket field 11).
func fields(msg []byte, prefix string, out map[string]int) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, msg[n:])
		if m < 0 {
			return protowire.ParseError(m)
		}
		name := prefix + strconv.Itoa(int(num))
		if prefix == "" && num == 11 && typ == protowire.BytesType {
			inner, k := protowire.ConsumeBytes(msg[n:])
			out["track_event framing"] += n + k - len(inner)
			if err := fields(inner, "track_event.", out); err != nil {
				return err
			}
		} else {
			out[name] += n + m
		}
		msg = msg[n+m:]
	}
	return nil
}

// kinds adds the bytes of each packet under "kind " and what it holds, as
// package decode reads it.
func kinds(b []byte, out map[string]int) error {
	r := decode.NewReader(bytes.NewReader(b), "trace")
	last, kind := int64(0), ""
	for {
		p, err := r.Next()
		if err != nil && err != io.EOF {
			return err
		}
		if kind != "" { // the previous packet ends where this one starts
			end := int64(len(b))
			if err == nil {
				end = r.Offset()
			}
			out["kind "+kind] += int(end - last)
		}
		if err == io.EOF {
			return nil
		}
		last, kind = r.Offset(), kindOf(p)
	}
}

func kindOf(p *decode.Packet) string {
	switch {
	case p.ObjectName != nil:
		return "raw VkDebugUtilsObjectName"
	case p.Track != nil:
		return "track descriptor"
	case p.ClockSnapshot:
		return "clock snapshot"
	case p.Event == nil:
		return "other"
	}
	switch p.Event.Type {
	case decode.TypeInstant:
		return "instant " + p.Event.Name
	case decode.TypeSliceBegin:
		return "slice begin"
	case decode.TypeSliceEnd:
		return "slice end"
	case decode.TypeCounter:
		return "counter"
	}
	return "track event"
}
