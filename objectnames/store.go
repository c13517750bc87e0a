package objectnames

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/vkgen/vkgen/generated"
	"github.com/vkgen/vkgen/internal/hashmap"
)

// Record is one name as it leaves the store.
type Record struct {
	Device uint64               // VkDevice the object was named through
	Type   generated.ObjectType // modern object type, never UNKNOWN
	Handle uint64
	Name   string // the stored copy; emitters may retain it. Empty when Removed.
	// Removed reports that the name was removed (null or empty name given).
	// Live emission only; EmitAll never emits removals.
	Removed bool
}

// Emitter receives names leaving the store. It is called with a shard lock
// held and concurrently from several goroutines; it must be safe for
// concurrent use and must never call back into the store.
type Emitter interface {
	EmitName(Record)
}

// EmitterFunc adapts a function to Emitter.
type EmitterFunc func(Record)

// EmitName calls f(r).
func (f EmitterFunc) EmitName(r Record) { f(r) }

// Emitters emits every record to each of its emitters in order, for a store
// shared by several layers. Nil entries are skipped.
type Emitters []Emitter

// EmitName forwards r to every non-nil emitter.
func (es Emitters) EmitName(r Record) {
	for _, e := range es {
		if e != nil {
			e.EmitName(r)
		}
	}
}

// Errors returned for names that cannot be stored; wrapped with details.
var (
	ErrUnknownObjectType  = errors.New("objectnames: VK_OBJECT_TYPE_UNKNOWN objects cannot be named")
	ErrNullHandle         = errors.New("objectnames: VK_NULL_HANDLE cannot be named")
	ErrUnmappedLegacyType = errors.New("objectnames: legacy debug-report object type has no VkObjectType")
	ErrUnknownCommand     = errors.New("objectnames: not a destroy or free command")
)

const (
	shardBits = 6
	numShards = 1 << shardBits
)

// key identifies one named object. dev is 0 for process-wide handles.
type key struct {
	handle uint64
	dev    uint64
	typ    int64 // a generated.ObjectType
}

// Hash picks the key's shard (top bits) and is its hash in the shard's
// map, which then hashes a uint64 instead of the struct's bytes.
func (k key) Hash() uint64 {
	return (k.handle ^ k.dev*0x9e3779b97f4a7c15 ^ uint64(k.typ)<<32) * 0xbf58476d1ce4e5b9
}

func (k key) objectType() generated.ObjectType { return generated.ObjectType(k.typ) }

type entry struct {
	dev  uint64
	name string
}

type shard struct {
	mu sync.Mutex
	m  hashmap.Map[key, entry] // shrinks as names are forgotten
	_  [8]byte                 // 64 bytes a shard: neighbouring shard locks never share a cache line
}

// Store is a thread-safe object-name store. Create it with New; the zero
// value is not usable.
type Store struct {
	live    Emitter
	limit   limit
	watchMu sync.Mutex
	watches []*func(device uint64, dropped []Record) // under watchMu
	shards  [numShards]shard
}

// New returns an empty store publishing every stored change to live (nil:
// store only, for tools and tests).
func New(live Emitter) *Store {
	return &Store{live: live}
}

func makeKey(dev uint64, t generated.ObjectType, handle uint64) key {
	if flagsOf(t)&processWide != 0 {
		dev = 0
	}
	return key{handle: handle, dev: dev, typ: int64(t)}
}

func (s *Store) shardOf(k key) *shard {
	return &s.shards[k.Hash()>>(64-shardBits)]
}

// SetName stores name for the object (type t, handle) named through device
// and emits the change to the live emitter. An empty name removes the name.
// An unchanged name emits nothing. name is borrowed: it may be a view of
// memory the caller reuses after the call, because the store keeps a copy.
func (s *Store) SetName(device uint64, t generated.ObjectType, handle uint64, name string) error {
	if t == generated.ObjectTypeUnknown {
		return ErrUnknownObjectType
	}
	if handle == 0 {
		return fmt.Errorf("%w (%v)", ErrNullHandle, t)
	}
	k := makeKey(device, t, handle)
	sh := s.shardOf(k)
	if sh.set(s, k, device, name) {
		return nil
	}
	s.refuse() // after the shard's lock: onFull may emit
	return fmt.Errorf("%w (%v %#x)", ErrFull, t, handle)
}

// set stores name under k in sh and emits the change; false when sh is full
// and k new, which emits the name without keeping it.
func (sh *shard) set(s *Store, k key, device uint64, name string) (kept bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	t, handle := k.objectType(), k.handle
	old, ok := sh.m.Get(k)
	if name == "" {
		if ok {
			sh.m.Delete(k)
			s.emit(Record{Device: old.dev, Type: t, Handle: handle, Removed: true})
		}
		return true
	}
	if ok && old.dev == device && old.name == name {
		return true
	}
	if !ok && sh.m.Len() >= MaxNames/numShards {
		s.emit(Record{Device: device, Type: t, Handle: handle, Name: strings.Clone(name)})
		return false
	}
	if !ok || old.name != name {
		name = strings.Clone(name)
	} else {
		name = old.name // only the device changed: keep the stored copy
	}
	sh.m.Set(k, entry{dev: device, name: name})
	s.emit(Record{Device: device, Type: t, Handle: handle, Name: name})
	return true
}

func (s *Store) emit(r Record) {
	if s.live != nil {
		s.live.EmitName(r)
	}
}

// Get returns the current name of the object and whether it has one.
func (s *Store) Get(device uint64, t generated.ObjectType, handle uint64) (string, bool) {
	k := makeKey(device, t, handle)
	sh := s.shardOf(k)
	sh.mu.Lock()
	e, ok := sh.m.Get(k)
	sh.mu.Unlock()
	return e.name, ok
}

// WithName calls f with the object's current name ("" when it has none)
// under the name's shard lock: a change of that name is stored and published
// before f runs or after it returns, never in between. f must not call the
// store.
func (s *Store) WithName(device uint64, t generated.ObjectType, handle uint64, f func(name string)) {
	k := makeKey(device, t, handle)
	sh := s.shardOf(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	f(sh.m.At(k).name)
}

// Len returns the number of stored names. Shards are counted one after the
// other, so under concurrent changes the result is approximate.
func (s *Store) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.m.Len()
		sh.mu.Unlock()
	}
	return n
}

// Reset forgets every name without emitting anything. Meant for tests.
func (s *Store) Reset() {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		sh.m = hashmap.Map[key, entry]{}
		sh.mu.Unlock()
	}
}

// ObjectDestroyed forgets the name of a destroyed object without emitting
// anything (a trace keeps the name for the object's earlier events). A
// destroyed VkDevice forgets everything it owned, as DeviceDestroyed does.
func (s *Store) ObjectDestroyed(device uint64, t generated.ObjectType, handle uint64) {
	if t == generated.ObjectTypeDevice {
		s.DeviceDestroyed(handle)
		return
	}
	k := makeKey(device, t, handle)
	sh := s.shardOf(k)
	sh.mu.Lock()
	sh.m.Delete(k)
	sh.mu.Unlock()
}

// CommandDestroyed forgets the names of handles ended by a destroy or free
// command ("vkDestroyBuffer", "vkFreeCommandBuffers", "vkDestroyDevice", ...),
// looked up in the generated destroyer table. Null handles are skipped, as
// the commands accept them. It returns ErrUnknownCommand for any other name.
func (s *Store) CommandDestroyed(command string, device uint64, handles ...uint64) error {
	d, ok := generated.DestroyerByCommand(command)
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownCommand, command)
	}
	for _, h := range handles {
		if h != 0 {
			s.ObjectDestroyed(device, d.ObjectType, h)
		}
	}
	return nil
}

// DeviceDestroyed forgets the device's own name and every name of an object
// that belongs to it (device-level types named through it), without emitting
// anything. Instance-level objects named through the device keep their names.
// It scans the whole store: devices are destroyed rarely, and an index per
// device would cost memory on every name. The watchers (WatchDevices) then
// get the names it dropped.
func (s *Store) DeviceDestroyed(device uint64) {
	if device == 0 {
		return
	}
	s.watchMu.Lock()
	watches := s.watches
	s.watchMu.Unlock()
	var dropped []Record
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for k, e := range sh.m.All() {
			if (k.objectType() == generated.ObjectTypeDevice && k.handle == device) ||
				(e.dev == device && flagsOf(k.objectType())&deviceOwned != 0) {
				sh.m.Delete(k)
				if len(watches) != 0 {
					dropped = append(dropped, Record{Device: e.dev, Type: k.objectType(), Handle: k.handle, Name: e.name})
				}
			}
		}
		sh.mu.Unlock()
	}
	for _, w := range watches {
		(*w)(device, dropped)
	}
}

// WatchDevices registers f to get the names DeviceDestroyed drops, after
// they are gone and with no store lock held (f may read the store): a layer
// that reports on a device's objects after the device's names were forgotten
// (another layer's vkDestroyDevice came first) keeps the ones it needs. The
// returned function unregisters f.
func (s *Store) WatchDevices(f func(device uint64, dropped []Record)) (stop func()) {
	w := &f
	s.watchMu.Lock()
	s.watches = append(s.watches[:len(s.watches):len(s.watches)], w)
	s.watchMu.Unlock()
	return func() {
		s.watchMu.Lock()
		defer s.watchMu.Unlock()
		if i := slices.Index(s.watches, w); i >= 0 {
			s.watches = slices.Delete(slices.Clone(s.watches), i, i+1)
		}
	}
}
