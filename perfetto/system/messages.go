package system

import (
	"fmt"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/internal/pb"
	"google.golang.org/protobuf/encoding/protowire"
)

// ServiceName is the ProducerPort service name a producer binds.
const ServiceName = "ProducerPort"

// ProducerPort method names (the service tells their ids in BindServiceReply).
const (
	mInitializeConnection    = "InitializeConnection"
	mRegisterDataSource      = "RegisterDataSource"
	mCommitData              = "CommitData"
	mGetAsyncCommand         = "GetAsyncCommand"
	mRegisterTraceWriter     = "RegisterTraceWriter"
	mUnregisterTraceWriter   = "UnregisterTraceWriter"
	mNotifyDataSourceStarted = "NotifyDataSourceStarted"
	mNotifyDataSourceStopped = "NotifyDataSourceStopped"
	mSync                    = "Sync" // optional: AtExit's round trip
)

var requiredMethods = []string{
	mInitializeConnection, mRegisterDataSource, mCommitData, mGetAsyncCommand,
	mRegisterTraceWriter, mUnregisterTraceWriter, mNotifyDataSourceStarted, mNotifyDataSourceStopped,
}

// DataSourceName is the data source the layers register, as the SDK's
// TrackEvent does.
const DataSourceName = "track_event"

// Category is a track-event category advertised in the TrackEventDescriptor.
type Category struct{ Name, Description string }

// DefaultCategories are the layers' categories, advertised even before the
// layers register them.
var DefaultCategories = []Category{
	{"VulkanDebugMarker", "Vulkan Debug Markers and Labels"},
	{"VulkanDeviceMemoryReport", "Vulkan Device Memory Report Counters"},
}

// AllCategories is what the data-source descriptor advertises by default:
// DefaultCategories, then every other category registered with package
// perfetto so far (with its NewCategory description). A category registered
// after the connection is recorded all the same; it is only missing from
// the list the service shows until the next connection.
func AllCategories() []Category {
	out := append([]Category(nil), DefaultCategories...)
	seen := map[string]bool{}
	for _, c := range out {
		seen[c.Name] = true
	}
	for _, c := range perfetto.Categories() {
		if !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, Category{c.Name, c.Description})
		}
	}
	return out
}

// InitializeConnectionRequest.
func encodeInitializeConnection(name string, pageHint, sizeHint uint32, producerSMB bool) []byte {
	var b []byte
	b = pb.AppendVarint(b, 1, uint64(pageHint))
	b = pb.AppendVarint(b, 2, uint64(sizeHint))
	b = pb.AppendString(b, 3, name)
	if producerSMB {
		b = pb.AppendVarint(b, 6, 1)
	}
	return pb.AppendString(b, 8, "vkgen-go")
}

type initReply struct{ usingProducerSMB, shmemEmulation bool }

func decodeInitReply(b []byte) (r initReply, err error) {
	err = pb.Walk(b, func(num protowire.Number, v uint64, _ []byte) error {
		switch num {
		case 1:
			r.usingProducerSMB = v != 0
		case 3:
			r.shmemEmulation = v != 0
		}
		return nil
	})
	return r, err
}

// RegisterDataSourceRequest{DataSourceDescriptor{name, will_notify_on_stop,
// will_notify_on_start, handles_incremental_state_clear,
// track_event_descriptor{available_categories}}}.
func encodeRegisterDataSource(cats []Category) []byte {
	var d []byte
	d = pb.AppendString(d, 1, DataSourceName)
	d = pb.AppendVarint(d, 2, 1)
	d = pb.AppendVarint(d, 3, 1)
	d = pb.AppendVarint(d, 4, 1)
	var ted []byte
	for _, c := range cats {
		var cb []byte
		cb = pb.AppendString(cb, 1, c.Name)
		if c.Description != "" {
			cb = pb.AppendString(cb, 2, c.Description)
		}
		ted = pb.AppendBytes(ted, 1, cb)
	}
	d = pb.AppendBytes(d, 6, ted)
	return pb.AppendBytes(nil, 1, d)
}

func decodeRegisterReply(b []byte) (errMsg string, err error) {
	err = pb.Walk(b, func(num protowire.Number, _ uint64, data []byte) error {
		if num == 1 {
			errMsg = string(data)
		}
		return nil
	})
	return errMsg, err
}

// chunkRef names a chunk to move: CommitDataRequest.ChunksToMove; data is
// the whole chunk under shared-memory emulation.
type chunkRef struct {
	page, chunk, targetBuffer uint32
	data                      []byte
}

func appendCommitData(b []byte, chunks []chunkRef, flushID uint64) []byte {
	for _, c := range chunks {
		var m []byte
		m = pb.AppendVarint(m, 1, uint64(c.page))
		m = pb.AppendVarint(m, 2, uint64(c.chunk))
		m = pb.AppendVarint(m, 3, uint64(c.targetBuffer))
		if c.data != nil {
			m = pb.AppendBytes(m, 4, c.data)
		}
		b = pb.AppendBytes(b, 1, m)
	}
	if flushID != 0 {
		b = pb.AppendVarint(b, 3, flushID)
	}
	return b
}

func encodeTraceWriter(id uint16, targetBuffer uint32, register bool) []byte {
	b := pb.AppendVarint(nil, 1, uint64(id))
	if register {
		b = pb.AppendVarint(b, 2, uint64(targetBuffer))
	}
	return b
}

func encodeInstanceID(id uint64) []byte { return pb.AppendVarint(nil, 1, id) }

// Async commands (GetAsyncCommandResponse.cmd).
type cmdKind int

const (
	cmdSetupTracing cmdKind = iota + 1
	cmdSetupDataSource
	cmdStartDataSource
	cmdStopDataSource
	cmdFlush
	cmdClearIncrementalState
	cmdSynced // not from the service: a Sync reply came
)

type command struct {
	kind      cmdKind
	id        uint64   // instance id (setup/start/stop)
	ids       []uint64 // flush / clear
	requestID uint64   // flush
	pageKB    uint32   // setup tracing
	config    dsConfig
	done      chan struct{} // cmdSynced
}

// dsConfig is the part of DataSourceConfig the producer uses.
type dsConfig struct {
	name         string
	targetBuffer uint32
	sessionID    uint64
	trackEvent   trackEventConfig
}

type trackEventConfig struct {
	enabledCats, disabledCats, enabledTags, disabledTags []string
}

func decodeCommand(b []byte) (c command, err error) {
	err = pb.Walk(b, func(num protowire.Number, _ uint64, data []byte) error {
		switch num {
		case 3:
			c.kind = cmdSetupTracing
			return pb.Walk(data, func(n protowire.Number, v uint64, _ []byte) error {
				if n == 1 {
					c.pageKB = uint32(v)
				}
				return nil
			})
		case 6, 1:
			c.kind = cmdStartDataSource
			if num == 6 {
				c.kind = cmdSetupDataSource
			}
			return pb.Walk(data, func(n protowire.Number, v uint64, d []byte) error {
				switch n {
				case 1:
					c.id = v
				case 2:
					cfg, err := decodeDataSourceConfig(d)
					c.config = cfg
					return err
				}
				return nil
			})
		case 2:
			c.kind = cmdStopDataSource
			return pb.Walk(data, func(n protowire.Number, v uint64, _ []byte) error {
				if n == 1 {
					c.id = v
				}
				return nil
			})
		case 5, 7:
			c.kind = cmdFlush
			if num == 7 {
				c.kind = cmdClearIncrementalState
			}
			return pb.Walk(data, func(n protowire.Number, v uint64, d []byte) error {
				switch {
				case n == 1 && d != nil: // packed
					for len(d) > 0 {
						x, k := protowire.ConsumeVarint(d)
						if k < 0 {
							return protowire.ParseError(k)
						}
						c.ids = append(c.ids, x)
						d = d[k:]
					}
				case n == 1:
					c.ids = append(c.ids, v)
				case n == 2 && num == 5:
					c.requestID = v
				}
				return nil
			})
		}
		return nil
	})
	if err == nil && c.kind == 0 {
		err = fmt.Errorf("unknown async command")
	}
	return c, err
}

func decodeDataSourceConfig(b []byte) (c dsConfig, err error) {
	err = pb.Walk(b, func(num protowire.Number, v uint64, data []byte) error {
		switch num {
		case 1:
			c.name = string(data)
		case 2:
			c.targetBuffer = uint32(v)
		case 4:
			c.sessionID = v
		case 113:
			return pb.Walk(data, func(n protowire.Number, _ uint64, d []byte) error {
				s := string(d)
				switch n {
				case 1:
					c.trackEvent.disabledCats = append(c.trackEvent.disabledCats, s)
				case 2:
					c.trackEvent.enabledCats = append(c.trackEvent.enabledCats, s)
				case 3:
					c.trackEvent.disabledTags = append(c.trackEvent.disabledTags, s)
				case 4:
					c.trackEvent.enabledTags = append(c.trackEvent.enabledTags, s)
				}
				return nil
			})
		}
		return nil
	})
	return c, err
}
