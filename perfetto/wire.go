package perfetto

import (
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers from perfetto_trace.proto (package perfetto.protos).
const (
	fTracePacket = 1 // Trace.packet

	// TracePacket
	fTimestamp             = 8
	fSeqID                 = 10 // trusted_packet_sequence_id
	fTrackEvent            = 11
	fInternedData          = 12
	fSequenceFlags         = 13
	fPreviousPacketDropped = 42
	fTimestampClockID      = 58
	fTracePacketDefaults   = 59
	fTrackDescriptor       = 60
	fVulkanAPIEvent        = 65
	fFirstPacketOnSequence = 87

	// TrackEvent
	fTECategoryIIDs = 3
	fTEDebugAnnots  = 4
	fTEType         = 9
	fTENameIID      = 10
	fTETrackUUID    = 11
	fTEName         = 23
	fTECounterValue = 30
	// extra_counter_track_uuids and extra_counter_values: counter values
	// that go with an event of any type, at its timestamp.
	fTEExtraCounterUUIDs  = 31
	fTEExtraCounterValues = 12

	// DebugAnnotation
	fDANameIID = 1
	fDABool    = 2
	fDAUint    = 3
	fDAInt     = 4
	fDAString  = 6
	fDAStrIID  = 17 // string_value_iid

	// InternedData; each entry is {iid = 1, name = 2}
	fIDCategories = 1
	fIDEventNames = 2
	fIDAnnotNames = 3
	fIDStrValues  = 29 // debug_annotation_string_values

	// TrackDescriptor
	fTDUUID       = 1
	fTDName       = 2
	fTDProcess    = 3
	fTDThread     = 4
	fTDParentUUID = 5
	fTDCounter    = 8
	fTDStaticName = 10

	// ProcessDescriptor / ThreadDescriptor / CounterDescriptor
	fPDPid     = 1
	fPDCmdline = 2
	fPDName    = 6
	fThPid     = 1
	fThTid     = 2
	fThName    = 5
	fCDUnit    = 3

	// TracePacketDefaults / TrackEventDefaults
	fDefTrackEventDefaults = 11
	fTEDTrackUUID          = 11

	// VulkanApiEvent.vk_debug_utils_object_name and its fields
	fVkDebugUtilsObjectName = 1
	fVkONPid                = 1
	fVkONDevice             = 2
	fVkONObjectType         = 3
	fVkONObject             = 4
	fVkONObjectName         = 5
)

// Enum values from perfetto_trace.proto.
const (
	seqIncrementalStateCleared = 1 // TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncrementalState   = 2 // TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
	typeInstant                = 3 // TrackEvent.TYPE_INSTANT
	typeCounter                = 4 // TrackEvent.TYPE_COUNTER
	// ClockBoottime is BuiltinClock.BUILTIN_CLOCK_BOOTTIME, the clock of every
	// timestamp this package writes.
	ClockBoottime = 6
)

// MaxStringLen is the longest string value, in bytes, written into a trace.
// Longer strings are cut at a UTF-8 boundary and end with TruncationMarker.
const MaxStringLen = 4096

// TruncationMarker ends every string that was cut to MaxStringLen.
const TruncationMarker = "...[truncated]"

// appendVarintField writes a varint field. Tags of fields 1..15 are one byte
// and small values one or two, the bulk of every event, so those are
// appended directly (this is most of the encoder's time); the rest goes
// through protowire.
func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if num < 16 {
		b = append(b, byte(num)<<3)
	} else {
		b = protowire.AppendTag(b, num, protowire.VarintType)
	}
	return appendVarint(b, v)
}

func appendVarint(b []byte, v uint64) []byte {
	switch {
	case v < 1<<7:
		return append(b, byte(v))
	case v < 1<<14:
		return append(b, byte(v)|0x80, byte(v>>7))
	}
	return protowire.AppendVarint(b, v)
}

// beginMsg opens a length-delimited field with a one-byte length placeholder;
// endMsg patches it. Nearly every message here is under 128 bytes, so this
// avoids a sizing pass; larger ones are shifted once.
func beginMsg(b []byte, num protowire.Number) ([]byte, int) {
	if num < 16 {
		b = append(b, byte(num)<<3|byte(protowire.BytesType), 0)
	} else {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = append(b, 0)
	}
	return b, len(b)
}

func endMsg(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	extra := protowire.SizeVarint(uint64(n)) - 1
	b = append(b, make([]byte, extra)...)
	copy(b[start+extra:], b[start:start+n])
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}

// appendPacketHeader opens a Trace.packet and writes the fields every packet
// of this package carries: an absolute CLOCK_BOOTTIME timestamp with its
// explicit clock id (never a sequence default, see reference-behaviour 7.3.6)
// and the sequence id, unless seqID is 0 (Options.OmitSequenceID).
func appendPacketHeader(b []byte, ts uint64, seqID uint32) ([]byte, int) {
	b, start := beginMsg(b, fTracePacket)
	b = append(b, fTimestamp<<3)
	b = protowire.AppendVarint(b, ts)
	// timestamp_clock_id (58, two-byte tag) = 6.
	b = append(b, fTimestampClockID<<3&0x7f|0x80, fTimestampClockID>>4, ClockBoottime)
	if seqID != 0 {
		b = appendVarint(append(b, fSeqID<<3), uint64(seqID))
	}
	return b, start
}

// appendString writes a string field, replacing invalid UTF-8 with U+FFFD and
// truncating to MaxStringLen. The common case (short, valid) is a plain append.
func appendString(b []byte, num protowire.Number, s string) []byte {
	if len(s) <= MaxStringLen && utf8.ValidString(s) {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, s)
	}
	limit := math.MaxInt // no cut unless the sanitised text is too long
	if sanitizedLen(s) > MaxStringLen {
		limit = MaxStringLen - len(TruncationMarker)
	}
	b, start := beginMsg(b, num)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		invalid := r == utf8.RuneError && size <= 1
		enc := size
		if invalid {
			enc = utf8.RuneLen(utf8.RuneError)
		}
		if len(b)-start+enc > limit {
			b = append(b, TruncationMarker...)
			break
		}
		if invalid {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return endMsg(b, start)
}

// sanitizedLen is the length of s once each invalid byte became U+FFFD.
func sanitizedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			n += utf8.RuneLen(utf8.RuneError)
		} else {
			n += size
		}
		i += size
	}
	return n
}

// Sanitize returns s as it is written into a trace: invalid UTF-8 replaced
// by U+FFFD, cut to MaxStringLen ending with TruncationMarker.
func Sanitize(s string) string {
	if len(s) <= MaxStringLen && utf8.ValidString(s) {
		return s
	}
	b := appendString(nil, 1, s)
	_, _, n := protowire.ConsumeTag(b)
	str, _ := protowire.ConsumeString(b[n:])
	return str
}
