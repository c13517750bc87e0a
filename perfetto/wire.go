package perfetto

import (
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers from perfetto_trace.proto (package perfetto.protos).
const (
	fTracePacket = 1 // Trace.packet

	// TracePacket
	fClockSnapshot         = 6
	fTimestamp             = 8
	fSeqID                 = 10 // trusted_packet_sequence_id
	fTrackEvent            = 11
	fInternedData          = 12
	fSequenceFlags         = 13
	fPreviousPacketDropped = 42
	fCompressedPackets     = 50
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
	fDefTimestampClockID   = 58
	fTEDTrackUUID          = 11

	// ClockSnapshot.clocks and its Clock's fields
	fCSClocks         = 1
	fClkID            = 1
	fClkTimestamp     = 2
	fClkIsIncremental = 3

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
	// absolute timestamp this package writes.
	ClockBoottime = 6
	// ClockIncremental is the sequence-scoped incremental clock (ids 64-127
	// are a sequence's own) of the timestamps written as deltas, see
	// stamp.go.
	ClockIncremental = 64
)

// MaxStringLen is the longest string value, in bytes, written into a trace.
// Longer strings are cut at a UTF-8 boundary and end with TruncationMarker.
const MaxStringLen = 4096

// TruncationMarker ends every string that was cut to MaxStringLen.
const TruncationMarker = "...[truncated]"

// appendVarintField writes a varint field.
func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	return appendVarint(appendTag(b, num, protowire.VarintType), v)
}

// appendTag writes the tag of field num (every field here is below 2048, so
// one or two bytes); small enough to inline, as are its callers.
func appendTag(b []byte, num protowire.Number, t protowire.Type) []byte {
	if num < 16 {
		return append(b, byte(num)<<3|byte(t))
	}
	return append(b, byte(num)<<3|byte(t)|0x80, byte(num>>4))
}

// appendVarint writes v a byte at a time: for the few bytes of a varint
// this beats building it aside and copying it in.
func appendVarint(b []byte, v uint64) []byte {
	for v >= 1<<7 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// sizeVarint is the encoded size of v.
func sizeVarint(v uint64) int { return protowire.SizeVarint(v) }

// sizeTag is the encoded size of a tag of field num (all below 2048 here).
func sizeTag(num protowire.Number) int {
	if num < 16 {
		return 1
	}
	return 2
}

// sizeVarintField is the encoded size of a varint field.
func sizeVarintField(num protowire.Number, v uint64) int { return sizeTag(num) + sizeVarint(v) }

// sizeMsg is the encoded size of a length-delimited field whose content is n
// bytes.
func sizeMsg(num protowire.Number, n int) int { return sizeTag(num) + sizeVarint(uint64(n)) + n }

// appendMsgHeader opens a length-delimited field whose content, n bytes,
// follows: the sized counterpart of beginMsg, for hot paths that know n.
func appendMsgHeader(b []byte, num protowire.Number, n int) []byte {
	return appendVarint(appendTag(b, num, protowire.BytesType), uint64(n))
}

// beginMsg opens a length-delimited field with a one-byte length placeholder;
// endMsg patches it. For messages not sized beforehand (descriptors,
// interning, string annotations); larger ones are shifted once.
func beginMsg(b []byte, num protowire.Number) ([]byte, int) {
	b = append(appendTag(b, num, protowire.BytesType), 0)
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

// appendPacketHeader opens a Trace.packet with an absolute timestamp
// (appendPacketFields); endMsg closes it. Packets on a sequence's
// incremental clock open with sequence.appendPacketHeader.
func appendPacketHeader(b []byte, ts uint64, seqID uint32) ([]byte, int) {
	b, start := beginMsg(b, fTracePacket)
	return appendPacketFields(b, ts, false, seqID), start
}

// appendPacketFields writes a packet's timestamp and its sequence id, unless
// seqID is 0 (Options.OmitSequenceID). An absolute CLOCK_BOOTTIME timestamp
// carries its explicit clock id (see reference-behaviour 7.3.6: the
// sequence's default clock is the incremental one); a delta on the
// incremental clock (stamp.go) carries none and SEQ_NEEDS_INCREMENTAL_STATE,
// since the clock is incremental state; needs writes that flag on an
// absolute timestamp too (the packet uses interned data).
func appendPacketFields(b []byte, ts uint64, delta bool, seqID uint32) []byte {
	b = appendVarint(append(b, fTimestamp<<3), ts)
	if !delta {
		// timestamp_clock_id (58, two-byte tag) = 6.
		b = append(b, fTimestampClockID<<3&0x7f|0x80, fTimestampClockID>>4, ClockBoottime)
	}
	if seqID != 0 {
		b = appendVarint(append(b, fSeqID<<3), uint64(seqID))
	}
	return b
}

func sizePacketFields(ts uint64, delta bool, seqID uint32) int {
	n := 1 + sizeVarint(ts)
	if !delta {
		n += 3
	}
	if seqID != 0 {
		n += 1 + sizeVarint(uint64(seqID))
	}
	return n
}

// appendString writes a string field, replacing invalid UTF-8 with U+FFFD and
// truncating to MaxStringLen.
func appendString(b []byte, num protowire.Number, s string) []byte {
	n, asIs := sanitizedSize(s)
	return appendSanitized(b, num, s, n, asIs)
}

// sanitizedSize is the length of s as written (Sanitize's) and whether s is
// written as it is (short and valid: the common case, a plain append).
func sanitizedSize(s string) (n int, asIs bool) {
	if len(s) <= MaxStringLen && utf8.ValidString(s) {
		return len(s), true
	}
	_, n, cut := sanitizedPrefix(s)
	if cut {
		n += len(TruncationMarker)
	}
	return n, false
}

// appendSanitized is appendString with sanitizedSize's results, for callers
// that sized the field already.
func appendSanitized(b []byte, num protowire.Number, s string, n int, asIs bool) []byte {
	b = appendMsgHeader(b, num, n)
	if asIs {
		return append(b, s...)
	}
	end, _, cut := sanitizedPrefix(s)
	for i := 0; i < end; {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	if cut {
		b = append(b, TruncationMarker...)
	}
	return b
}

// sanitizedPrefix returns how much of s is written, s[:end], and its length
// n once each invalid byte became U+FFFD; cut says the text was too long and
// TruncationMarker follows the prefix (cut at a rune boundary so that the
// whole fits MaxStringLen).
func sanitizedPrefix(s string) (end, n int, cut bool) {
	if n := sanitizedLen(s); n <= MaxStringLen {
		return len(s), n, false
	}
	limit := MaxStringLen - len(TruncationMarker)
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		enc := size
		if r == utf8.RuneError && size <= 1 {
			enc = utf8.RuneLen(utf8.RuneError)
		}
		if n+enc > limit {
			break
		}
		n += enc
		end += size
	}
	return end, n, true
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
