package perfetto

// TraceStats field numbers (perfetto_trace.proto).
const (
	fTraceStats    = 35 // TracePacket.trace_stats
	fTSWriterStats = 18 // TraceStats.writer_stats
	fWSSequenceID  = 1  // TraceStats.WriterStats.sequence_id
	fWSBuffer      = 4  // TraceStats.WriterStats.buffer
)

// appendTraceStats writes the packet a tracing service ends a trace with,
// for a session that is its own service (it numbers its sequences; for a
// system session traced writes its own): TraceStats naming every sequence
// of the session as a writer of buffer 0. trace_processor counts the packets
// of those sequences marked previous_packet_dropped into its stats table
// (traced_buf_sequence_packet_loss, severity data_loss), so a loss shows
// where every trace check looks, not only on the DroppedEventsName counter.
// The packet belongs to no sequence.
func (s *Session) appendTraceStats(b []byte) []byte {
	b, pkt := appendPacketHeader(b, Now(), 0)
	b, st := beginMsg(b, fTraceStats)
	for _, q := range s.all() {
		var w int
		b, w = beginMsg(b, fTSWriterStats)
		b = appendVarintField(b, fWSSequenceID, uint64(q.id))
		b = appendVarintField(b, fWSBuffer, 0)
		b = endMsg(b, w)
	}
	b = endMsg(b, st)
	return endMsg(b, pkt)
}
