// Command exitprog starts tracing the way a layer does, emits one event and
// leaves through exit(3) without flushing, as an application that never
// destroys its instance would. Used by TestExitFlushes.
package main

// #include <stdlib.h>
import "C"

import (
	"github.com/vkgen/vkgen/layer/tracing"
	"github.com/vkgen/vkgen/perfetto"
)

func main() {
	if err := tracing.Start(); err != nil {
		panic(err)
	}
	perfetto.Instant(perfetto.NewCategory("exitprog"), perfetto.NewEventName("before-exit"))
	C.exit(0)
}
