package perfetto

// An event's extra counter values name their tracks in
// extra_counter_track_uuids, ten bytes a track; an event that gives values
// and no uuids takes them, in order, from the sequence's
// TrackEventDefaults.extra_counter_track_uuids (trace_processor's track
// event tokenizer). A sequence keeps such a list (extraDefault) and leaves
// the uuids out of every event whose tracks are a prefix of it. An event
// that misses it replaces the list, re-emitting the packet defaults
// (about 40 bytes) in its own packet, when its tracks extend the list or
// missed it the event before too; otherwise it names its tracks. Each batch
// starts without a list, as the sequence's state may be re-emitted in
// front of it (swapLocked): the list is incremental state, as the clock.

// extraUUIDs decides how the event with extra counters ex names their
// tracks: none when they are a prefix of the sequence's list (which
// defaults, when not nil, holds the packet defaults that make the list
// ex's first).
func (q *sequence) extraUUIDs(ex []extraCounter) (named bool, defaults []byte) {
	if len(ex) == 0 {
		return false, nil
	}
	if prefixOf(ex, q.extraDefault) {
		q.extraMiss = q.extraMiss[:0] // a miss that repeats must be consecutive
		return false, nil
	}
	if !extends(ex, q.extraDefault) && !sameTracks(ex, q.extraMiss) {
		q.extraMiss = q.extraMiss[:0]
		for _, e := range ex {
			q.extraMiss = append(q.extraMiss, e.track)
		}
		return true, nil
	}
	q.extraMiss = q.extraMiss[:0]
	q.extraDefault = q.extraDefault[:0]
	for _, e := range ex {
		q.extraDefault = append(q.extraDefault, e.track)
	}
	q.defaults = q.appendDefaults(q.defaults[:0], q.extraDefault)
	return false, q.defaults
}

// prefixOf reports whether the tracks of ex begin list.
func prefixOf(ex []extraCounter, list []CounterTrack) bool {
	if len(ex) > len(list) {
		return false
	}
	for i, e := range ex {
		if e.track != list[i] {
			return false
		}
	}
	return true
}

// extends reports whether ex begins with the tracks of list.
func extends(ex []extraCounter, list []CounterTrack) bool {
	if len(list) > len(ex) {
		return false
	}
	for i, c := range list {
		if ex[i].track != c {
			return false
		}
	}
	return true
}

func sameTracks(ex []extraCounter, list []CounterTrack) bool {
	return len(ex) == len(list) && prefixOf(ex, list)
}

// appendDefaults writes the sequence's TracePacketDefaults: the process
// track, the incremental clock and the extra counter tracks extra.
func (q *sequence) appendDefaults(b []byte, extra []CounterTrack) []byte {
	b, def := beginMsg(b, fTracePacketDefaults)
	b, ted := beginMsg(b, fDefTrackEventDefaults)
	b = appendVarintField(b, fTEDTrackUUID, processUUID)
	for _, c := range extra {
		if d := c.def(); d != nil {
			b = append(b, d.extra[q.small]...)
		}
	}
	b = endMsg(b, ted)
	b = appendVarintField(b, fDefTimestampClockID, ClockIncremental)
	return endMsg(b, def)
}
