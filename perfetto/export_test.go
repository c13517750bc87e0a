package perfetto

// LaneUUID is the uuid of lane n in a session without
// Options.SmallTrackUUIDs (with it: n<<1).
func LaneUUID(n uint64) uint64 { return (&sequence{}).laneUUID(n) }
