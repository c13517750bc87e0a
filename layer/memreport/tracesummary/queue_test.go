package tracesummary

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestQueueRoundTrip packs events with every field set (found by
// reflection, so a field added to event and not packed fails here) and
// with every field zero, and reads them back in order.
func TestQueueRoundTrip(t *testing.T) {
	full := func(i int) event {
		var e event
		v := reflect.ValueOf(&e).Elem()
		for f := range v.NumField() {
			fv := v.Field(f)
			fv = reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem() // unexported
			switch fv.Kind() {
			case reflect.Uint8:
				fv.SetUint(uint64(i%3 + 1))
			case reflect.Uint32, reflect.Uint64:
				fv.SetUint(uint64(1+i)<<(fv.Type().Bits()-8) | uint64(f))
			case reflect.String:
				fv.SetString(string(rune('a' + i%26)))
			case reflect.Pointer:
				fv.Set(reflect.New(fv.Type().Elem()))
			default:
				t.Fatalf("event field %s of kind %s: teach queue.go to pack it, and this test", v.Type().Field(f).Name, fv.Kind())
			}
		}
		e.ts, e.n = uint64(i)*1000, uint64(i)
		return e
	}
	var want []event
	for i := range 3000 {
		e := full(i)
		if i%2 == 1 {
			e = event{ts: e.ts, n: e.n}
		}
		want = append(want, e)
	}
	var q queue
	var free freeChunks
	for i := range want {
		if i > 0 && q.before(&want[i]) {
			t.Fatalf("event %d precedes %d", i, i-1)
		}
		q.add(&want[i], &free)
	}
	for i := range want {
		if q.empty() {
			t.Fatalf("empty after %d events", i)
		}
		if got := *q.first(); !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("event %d: got %+v, want %+v", i, got, want[i])
		}
		q.drop(&free)
	}
	if !q.empty() || q.chunks != nil {
		t.Fatalf("not empty after every event: %+v", q)
	}
}
