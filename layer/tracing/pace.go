package tracing

import (
	"time"

	vkgenlayer "github.com/vkgen/vkgen/layer"
	"github.com/vkgen/vkgen/perfetto"
)

// The framework knows no trace writer; the layers' events are Perfetto's, so
// their times (layer.EventTime) read Perfetto's calibrated CLOCK_BOOTTIME,
// and the deferred hooks wait for a trace output that fell behind rather
// than have their events dropped: this slows the drain, and through the ring
// the application, instead (a stuck output is given up on after a second).
func init() {
	vkgenlayer.SetEventClock(perfetto.Now)
	vkgenlayer.SetDrainPace(func() { perfetto.WaitForRoom(time.Second) })
}
