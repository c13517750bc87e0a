package system

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/perfetto/internal/pb"
	"github.com/vkgen/vkgen/perfetto/system/internal/ipc"
	"google.golang.org/protobuf/encoding/protowire"
)

// protoc runs protoc --decode/--encode of msg from the shared protos; the
// test skips without them.
func protoc(t *testing.T, mode, msg, file string, in []byte) []byte {
	t.Helper()
	out, missing := perfettotools.Protoc(t, mode, msg, file, in)
	if missing != "" {
		t.Skip(missing)
	}
	return out
}

func squash(b []byte) string { return strings.Join(strings.Fields(string(b)), " ") }

// What the producer sends, decoded by protoc from the official protos.
func TestRequestsAgainstProtos(t *testing.T) {
	pp := "protos/perfetto/ipc/producer_port.proto"
	for _, tc := range []struct {
		msg, file string
		b         []byte
		want      string
	}{
		{"InitializeConnectionRequest", pp, encodeInitializeConnection("p", 4096, 1<<20, true),
			`shared_memory_page_size_hint_bytes: 4096 shared_memory_size_hint_bytes: 1048576 producer_name: "p" producer_provided_shmem: true sdk_version: "vkgen-go"`},
		{"RegisterDataSourceRequest", pp, encodeRegisterDataSource([]Category{{"A", "a"}, {"B", ""}}),
			`data_source_descriptor { name: "track_event" will_notify_on_stop: true will_notify_on_start: true handles_incremental_state_clear: true track_event_descriptor { available_categories { name: "A" description: "a" } available_categories { name: "B" } } }`},
		{"CommitDataRequest", "protos/perfetto/common/commit_data_request.proto", appendCommitData(nil, []chunkRef{{3, 1, 2, nil}, {0, 0, 2, []byte("ab")}}, 9),
			`chunks_to_move { page: 3 chunk: 1 target_buffer: 2 } chunks_to_move { page: 0 chunk: 0 target_buffer: 2 data: "ab" } flush_request_id: 9`},
		{"RegisterTraceWriterRequest", pp, encodeTraceWriter(5, 2, true), `trace_writer_id: 5 target_buffer: 2`},
		{"UnregisterTraceWriterRequest", pp, encodeTraceWriter(5, 0, false), `trace_writer_id: 5`},
		{"NotifyDataSourceStartedRequest", pp, encodeInstanceID(12), `data_source_id: 12`},
	} {
		if got := squash(protoc(t, "decode", tc.msg, tc.file, tc.b)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.msg, got, tc.want)
		}
	}
	f := ipc.Append(nil, &ipc.Frame{RequestID: 4, Kind: ipc.KindInvokeMethod, ServiceID: 1, MethodID: 2, Args: []byte("x"), DropReply: true})
	got := squash(protoc(t, "decode", "IPCFrame", "protos/perfetto/ipc/wire_protocol.proto", f[4:]))
	if want := `request_id: 4 msg_invoke_method { service_id: 1 method_id: 2 args_proto: "x" drop_reply: true }`; got != want {
		t.Errorf("IPCFrame:\n got %s\nwant %s", got, want)
	}
}

// What the service sends, encoded by protoc, decoded by the producer.
func TestCommandsFromProtos(t *testing.T) {
	pp := "protos/perfetto/ipc/producer_port.proto"
	for text, want := range map[string]command{
		`setup_tracing { shared_buffer_page_size_kb: 16 }`: {kind: cmdSetupTracing, pageKB: 16},
		`start_data_source { new_instance_id: 3 config { name: "track_event" target_buffer: 1 tracing_session_id: 8 track_event_config { disabled_categories: "*" enabled_categories: "VulkanDebugMarker" } } }`: {
			kind: cmdStartDataSource, id: 3, config: dsConfig{name: "track_event", targetBuffer: 1, sessionID: 8,
				trackEvent: trackEventConfig{disabledCats: []string{"*"}, enabledCats: []string{"VulkanDebugMarker"}}}},
		`setup_data_source { new_instance_id: 4 config { name: "other" } }`:       {kind: cmdSetupDataSource, id: 4, config: dsConfig{name: "other"}},
		`stop_data_source { instance_id: 3 }`:                                     {kind: cmdStopDataSource, id: 3},
		`flush { data_source_ids: 3 data_source_ids: 5 request_id: 77 flags: 1 }`: {kind: cmdFlush, ids: []uint64{3, 5}, requestID: 77},
		`clear_incremental_state { data_source_ids: 3 }`:                          {kind: cmdClearIncrementalState, ids: []uint64{3}},
	} {
		b := protoc(t, "encode", "GetAsyncCommandResponse", pp, []byte(text))
		got, err := decodeCommand(b)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v %v\nwant %+v", text, got, err, want)
		}
	}
	if _, err := decodeCommand([]byte{0x0a, 0x05, 1}); err == nil {
		t.Error("truncated command accepted")
	}
}

func TestFrames(t *testing.T) {
	in := &ipc.Frame{RequestID: 9, Kind: ipc.KindBindServiceReply, Success: true, ServiceID: 3, Methods: map[string]uint32{"A": 1, "B": 2}}
	b := ipc.Append(nil, in)
	out, err := ipc.Decode(b[4:])
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip: %+v %v", out, err)
	}
	for _, bad := range [][]byte{{0x28}, {0x22, 0x05, 0x08}, {0x0b}, {0x22, 0x02, 0x1a, 0x09}} {
		if _, err := ipc.Decode(bad); err == nil {
			t.Errorf("malformed frame %x accepted", bad)
		}
	}
}

func TestCategoryFilter(t *testing.T) {
	for _, tc := range []struct {
		enabled, disabled []string
		cat               string
		want              bool
	}{
		{nil, nil, "X", true},
		{[]string{"vulkan"}, nil, "VulkanDebugMarker", true}, // C++ SDK: unmatched means enabled
		{[]string{"Vulkan*"}, []string{"*"}, "VulkanDebugMarker", true},
		{[]string{"VulkanDebugMarker"}, []string{"*"}, "VulkanDeviceMemoryReport", false},
		{[]string{"*"}, []string{"VulkanDebugMarker"}, "VulkanDebugMarker", false}, // exact beats pattern
		{[]string{"["}, nil, "VulkanDebugMarker", true},                            // a bad glob matches nothing
	} {
		f := newCatFilter(trackEventConfig{enabledCats: tc.enabled, disabledCats: tc.disabled})
		if got := f.allows(tc.cat); got != tc.want {
			t.Errorf("enabled %q disabled %q: %s allowed=%v", tc.enabled, tc.disabled, tc.cat, got)
		}
	}
}

// The shipped trace config parses as a TraceConfig, and its track_event
// data source selects exactly the layers' categories.
func TestShippedConfig(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(testenv.Root(), "configs", "vkgen.pbtxt"))
	if err != nil {
		t.Fatal(err)
	}
	enc := protoc(t, "encode", "TraceConfig", "perfetto_config.proto", text) // configs/vkgen.pbtxt
	var ds []dsConfig
	// TraceConfig.data_sources = 2 { config = 1 }.
	err = pb.Walk(enc, func(num protowire.Number, _ uint64, d []byte) error {
		if num != 2 {
			return nil
		}
		return pb.Walk(d, func(n protowire.Number, _ uint64, c []byte) error {
			if n == 1 {
				cfg, err := decodeDataSourceConfig(c)
				ds = append(ds, cfg)
				return err
			}
			return nil
		})
	})
	if err != nil || len(ds) != 1 || ds[0].name != DataSourceName {
		t.Fatalf("data sources %+v %v", ds, err)
	}
	f := newCatFilter(ds[0].trackEvent)
	for _, c := range DefaultCategories {
		if !f.allows(c.Name) {
			t.Errorf("config does not record %s", c.Name)
		}
	}
	if f.allows("other") {
		t.Error("config records unrelated categories")
	}
}
