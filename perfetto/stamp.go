package perfetto

// Timestamps are written as deltas on a sequence-scoped incremental clock
// (ClockIncremental, the sequence's default clock), as the official SDK
// does: 1-3 bytes a packet instead of an absolute time and its clock id
// (10). Each batch of a sequence (what one write to the output takes: see
// swapLocked) starts the clock again with a ClockSnapshot packet tying it
// to CLOCK_BOOTTIME, so a batch reads on its own whatever was lost before
// it and whatever a resync put in front of it. The resync's packets, the
// sequence header and the raw VkDebugUtilsObjectName packets carry
// absolute times with their explicit clock id and leave the clock alone;
// so does an event whose time is before the clock's (a replayed one). A
// sequence's snapshots never go back in time: trace_processor stops
// converting from a clock whose snapshots do.
// trace_processor skips a packet marked SEQ_NEEDS_INCREMENTAL_STATE while
// the sequence's state is invalid (after a loss, until the next cleared
// header) without moving the clock, so every delta is marked so: a
// packet it skipped leaves no wrong time behind.

// stamp returns the timestamp field of a packet at ts that opens at the end
// of b: a delta on the incremental clock (delta), or ts itself. b gains the
// snapshot that starts the clock when the batch has none.
func (q *sequence) stamp(b []byte, ts uint64) (_ []byte, v uint64, delta bool) {
	if q.absolute || q.clock != 0 && ts < q.clock || q.clock == 0 && ts < q.snapshot {
		return b, ts, false
	}
	if q.clock == 0 {
		b = q.appendClockSnapshot(b, ts)
		q.clock, q.snapshot = ts, ts
	}
	v, q.clock = ts-q.clock, ts
	return b, v, true
}

// appendClockSnapshot writes the packet that sets the incremental clock to
// ts, the same instant as CLOCK_BOOTTIME ts.
func (q *sequence) appendClockSnapshot(b []byte, ts uint64) []byte {
	b, pkt := beginMsg(b, fTracePacket)
	b, cs := beginMsg(b, fClockSnapshot)
	b, c := beginMsg(b, fCSClocks)
	b = appendVarintField(b, fClkID, ClockBoottime)
	b = appendVarintField(b, fClkTimestamp, ts)
	b = endMsg(b, c)
	b, c = beginMsg(b, fCSClocks)
	b = appendVarintField(b, fClkID, ClockIncremental)
	b = appendVarintField(b, fClkTimestamp, ts)
	b = appendVarintField(b, fClkIsIncremental, 1)
	b = endMsg(b, c)
	b = endMsg(b, cs)
	if q.pktSeq != 0 {
		b = appendVarintField(b, fSeqID, uint64(q.pktSeq))
	}
	return endMsg(b, pkt)
}

// appendPacket opens a packet of the sequence at ts whose content after the
// common fields is n bytes; needs marks it SEQ_NEEDS_INCREMENTAL_STATE (a
// delta is marked anyway).
func (q *sequence) appendPacket(b []byte, ts uint64, needs bool, n int) []byte {
	b, v, delta := q.stamp(b, ts)
	if needs || delta {
		n += 2
	}
	b = appendMsgHeader(b, fTracePacket, sizePacketFields(v, delta, q.pktSeq)+n)
	b = appendPacketFields(b, v, delta, q.pktSeq)
	if needs || delta {
		b = append(b, fSequenceFlags<<3, seqNeedsIncrementalState)
	}
	return b
}

// appendPacketHeader opens a packet of the sequence at ts, not sized
// beforehand; endMsg closes it.
func (q *sequence) appendPacketHeader(b []byte, ts uint64, needs bool) ([]byte, int) {
	b, v, delta := q.stamp(b, ts)
	b, start := beginMsg(b, fTracePacket)
	b = appendPacketFields(b, v, delta, q.pktSeq)
	if needs || delta {
		b = append(b, fSequenceFlags<<3, seqNeedsIncrementalState)
	}
	return b, start
}
