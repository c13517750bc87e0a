// Package fakeservice is an in-process stand-in for traced's producer port,
// written from the ProducerPort and IPCFrame protos, for testing
// perfetto/system without a real tracing service. It serves a UNIX socket,
// binds "ProducerPort", hands out a sealed memfd shared memory buffer over
// SCM_RIGHTS (or accepts the producer's), sends the async commands a test
// asks for, moves committed chunks out of the buffer (Complete -> BeingRead
// -> Free) and reassembles them into a trace the way the service's trace
// buffer does. It records every call so tests can assert on the protocol.
// It owns no producer logic and is only for tests.
package fakeservice

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/vkgen/vkgen/perfetto/internal/pb"
	"github.com/vkgen/vkgen/perfetto/system/internal/ipc"
	"github.com/vkgen/vkgen/perfetto/system/shmabi"
	"google.golang.org/protobuf/encoding/protowire"
)

var methods = []string{
	"InitializeConnection", "RegisterDataSource", "UnregisterDataSource", "CommitData",
	"GetAsyncCommand", "RegisterTraceWriter", "UnregisterTraceWriter",
	"NotifyDataSourceStarted", "NotifyDataSourceStopped", "ActivateTriggers", "Sync", "UpdateDataSource",
}

// Options configure the fake; zero values give small defaults.
type Options struct {
	PageSize          int  // default 4096
	SMBSize           int  // default 64 KiB
	AcceptProducerSMB bool // use a producer-provided buffer when offered
	CountOnly         bool // move chunks but keep none (benchmarks)
	// CommitDelay: a slow service (a traced short of CPU) that takes this
	// long before it frees the chunks of each CommitData.
	CommitDelay time.Duration
}

// Service listens on a socket and accepts producers.
type Service struct {
	ln    *net.UnixListener
	opts  Options
	conns chan *Conn
	wg    sync.WaitGroup
}

// Start listens on path.
func Start(path string, opts Options) (*Service, error) {
	if opts.PageSize == 0 {
		opts.PageSize = 4096
	}
	if opts.SMBSize == 0 {
		opts.SMBSize = 64 << 10
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	s := &Service{ln: ln, opts: opts, conns: make(chan *Conn, 16)}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

func (s *Service) accept() {
	defer s.wg.Done()
	for {
		uc, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		c := newConn(s, uc)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			c.serve()
		}()
	}
}

// Addr is the socket path.
func (s *Service) Addr() string { return s.ln.Addr().String() }

// Close stops listening (connections stay until closed).
func (s *Service) Close() error { return s.ln.Close() }

// Next waits for the next producer that registered its data source and
// opened the command stream.
func (s *Service) Next(timeout time.Duration) (*Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-time.After(timeout):
		return nil, errors.New("fakeservice: no producer connected")
	}
}

// Init is what the producer sent in InitializeConnection.
type Init struct {
	PageHint, SizeHint uint32
	Name, SDKVersion   string
	ProducerSMB        bool
	FDReceived         bool
}

// Descriptor is the registered DataSourceDescriptor.
type Descriptor struct {
	Name                                      string
	NotifyOnStop, NotifyOnStart, HandlesClear bool
	Categories                                []string
}

// Conn is one producer connection.
type Conn struct {
	s    *Service
	uc   *net.UnixConn
	rd   *ipc.Reader
	wmu  sync.Mutex
	done chan struct{}

	mu          sync.Mutex
	calls       []string
	init        Init
	desc        Descriptor
	asyncReq    uint64
	mem         []byte
	fd          int
	buf         *shmabi.Buffer
	smbSent     bool
	chunks      map[[2]uint32][]byte
	writers     map[uint16]uint32
	moved       int
	errs        []error
	started     map[uint64]chan struct{}
	stopped     map[uint64]chan struct{}
	flushes     map[uint64]chan struct{}
	nextFlush   uint64
	producerSMB bool
	targets     map[uint16]uint32 // every writer ever registered
	paused      bool
	held        [][2]int
}

func newConn(s *Service, uc *net.UnixConn) *Conn {
	return &Conn{s: s, uc: uc, rd: ipc.NewReader(uc), done: make(chan struct{}), fd: -1,
		chunks: map[[2]uint32][]byte{}, writers: map[uint16]uint32{}, targets: map[uint16]uint32{},
		started: map[uint64]chan struct{}{}, stopped: map[uint64]chan struct{}{}, flushes: map[uint64]chan struct{}{}}
}

func (c *Conn) serve() {
	defer close(c.done)
	defer c.cleanup()
	for {
		body, err := c.rd.Next()
		if err != nil {
			return
		}
		f, err := ipc.Decode(body)
		if err != nil {
			c.errorf("bad frame: %v", err)
			return
		}
		switch f.Kind {
		case ipc.KindBindService:
			ids := map[string]uint32{}
			for i, m := range methods {
				ids[m] = uint32(i + 1)
			}
			c.reply(&ipc.Frame{RequestID: f.RequestID, Kind: ipc.KindBindServiceReply, Success: f.ServiceName == "ProducerPort", ServiceID: 7, Methods: ids})
		case ipc.KindInvokeMethod:
			if f.ServiceID != 7 || f.MethodID == 0 || int(f.MethodID) > len(methods) {
				c.reply(&ipc.Frame{RequestID: f.RequestID, Kind: ipc.KindRequestError, Error: "unknown method"})
				continue
			}
			c.invoke(f, methods[f.MethodID-1])
		}
	}
}

func (c *Conn) cleanup() {
	c.uc.Close()
	c.rd.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mem != nil {
		syscall.Munmap(c.mem)
		c.mem, c.buf = nil, nil
	}
	if c.fd >= 0 {
		syscall.Close(c.fd)
		c.fd = -1
	}
}

func (c *Conn) errorf(format string, args ...any) {
	c.mu.Lock()
	c.errs = append(c.errs, fmt.Errorf(format, args...))
	c.mu.Unlock()
}

func (c *Conn) reply(f *ipc.Frame) { c.write(ipc.Append(nil, f), -1) }

func (c *Conn) write(b []byte, fd int) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return ipc.Write(c.uc, b, fd)
}

func walk(b []byte, fn func(num protowire.Number, v uint64, data []byte)) error {
	return pb.Walk(b, func(num protowire.Number, v uint64, data []byte) error { fn(num, v, data); return nil })
}

func (c *Conn) invoke(f *ipc.Frame, m string) {
	c.mu.Lock()
	c.calls = append(c.calls, m)
	c.mu.Unlock()
	var reply []byte
	switch m {
	case "InitializeConnection":
		var in Init
		walk(f.Args, func(n protowire.Number, v uint64, d []byte) {
			switch n {
			case 1:
				in.PageHint = uint32(v)
			case 2:
				in.SizeHint = uint32(v)
			case 3:
				in.Name = string(d)
			case 6:
				in.ProducerSMB = v != 0
			case 8:
				in.SDKVersion = string(d)
			}
		})
		fd := c.rd.TakeFD()
		in.FDReceived = fd >= 0
		accepted := false
		if fd >= 0 && in.ProducerSMB && c.s.opts.AcceptProducerSMB {
			accepted = c.mapSMB(fd, int(in.PageHint)) == nil
		} else if fd >= 0 {
			syscall.Close(fd)
		}
		c.mu.Lock()
		c.init, c.producerSMB, c.smbSent = in, accepted, accepted
		c.mu.Unlock()
		if accepted {
			reply = protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)
		}
	case "RegisterDataSource":
		var d Descriptor
		walk(f.Args, func(n protowire.Number, _ uint64, b []byte) {
			if n != 1 {
				return
			}
			walk(b, func(n protowire.Number, v uint64, b []byte) {
				switch n {
				case 1:
					d.Name = string(b)
				case 2:
					d.NotifyOnStop = v != 0
				case 3:
					d.NotifyOnStart = v != 0
				case 4:
					d.HandlesClear = v != 0
				case 6:
					walk(b, func(n protowire.Number, _ uint64, b []byte) {
						walk(b, func(n protowire.Number, _ uint64, b []byte) {
							if n == 1 {
								d.Categories = append(d.Categories, string(b))
							}
						})
					})
				}
			})
		})
		c.mu.Lock()
		c.desc = d
		ready := c.asyncReq != 0
		c.mu.Unlock()
		if ready {
			c.s.conns <- c
		}
	case "GetAsyncCommand":
		// As in traced, commands need the stream: a producer registering
		// its data source first would miss those of running sessions.
		c.mu.Lock()
		c.asyncReq = f.RequestID
		ready := c.desc.Name != ""
		c.mu.Unlock()
		if ready {
			c.s.conns <- c
		}
		return // replies are the commands
	case "CommitData":
		time.Sleep(c.s.opts.CommitDelay)
		c.commit(f.Args)
	case "RegisterTraceWriter", "UnregisterTraceWriter":
		var id, target uint64
		walk(f.Args, func(n protowire.Number, v uint64, _ []byte) {
			if n == 1 {
				id = v
			} else if n == 2 {
				target = v
			}
		})
		c.mu.Lock()
		if m == "RegisterTraceWriter" {
			c.writers[uint16(id)] = uint32(target)
			c.targets[uint16(id)] = uint32(target)
		} else {
			delete(c.writers, uint16(id))
		}
		c.mu.Unlock()
	case "NotifyDataSourceStarted", "NotifyDataSourceStopped":
		var id uint64
		walk(f.Args, func(n protowire.Number, v uint64, _ []byte) {
			if n == 1 {
				id = v
			}
		})
		c.mu.Lock()
		set := c.started
		if m == "NotifyDataSourceStopped" {
			set = c.stopped
		}
		if ch := set[id]; ch != nil {
			close(ch)
			delete(set, id)
		}
		c.mu.Unlock()
	}
	if !f.DropReply {
		c.reply(&ipc.Frame{RequestID: f.RequestID, Kind: ipc.KindInvokeMethodReply, Success: true, Args: reply})
	}
}

func (c *Conn) mapSMB(fd, pageSize int) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	mem, err := syscall.Mmap(fd, 0, int(st.Size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	b, err := shmabi.New(mem, pageSize)
	if err != nil {
		syscall.Munmap(mem)
		return err
	}
	c.mu.Lock()
	c.mem, c.buf, c.fd = mem, b, fd
	c.mu.Unlock()
	return nil
}

// commit moves the named chunks out of the buffer as the service does:
// Complete -> BeingRead, copy, -> Free. A chunk not in Complete is an error.
func (c *Conn) commit(args []byte) {
	var flushID uint64
	walk(args, func(n protowire.Number, v uint64, d []byte) {
		switch n {
		case 1:
			var page, chunk uint64
			walk(d, func(n protowire.Number, v uint64, _ []byte) {
				if n == 1 {
					page = v
				} else if n == 2 {
					chunk = v
				}
			})
			c.move(int(page), int(chunk))
		case 2:
			c.errorf("unexpected chunks_to_patch")
		case 3:
			flushID = v
		}
	})
	if flushID != 0 {
		c.mu.Lock()
		if ch := c.flushes[flushID]; ch != nil {
			close(ch)
			delete(c.flushes, flushID)
		}
		c.mu.Unlock()
	}
}

func (c *Conn) move(page, chunk int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		c.held = append(c.held, [2]int{page, chunk})
		return
	}
	c.moveLocked(page, chunk)
}

// Pause makes the fake a slow service: commits are noted but their chunks
// stay in the buffer until Resume.
func (c *Conn) Pause() {
	c.mu.Lock()
	c.paused = true
	c.mu.Unlock()
}

// Resume moves every held chunk and stops holding.
func (c *Conn) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused = false
	for _, h := range c.held {
		c.moveLocked(h[0], h[1])
	}
	c.held = nil
}

// Discard forgets every chunk moved so far, as a ring buffer that wrapped.
func (c *Conn) Discard() {
	c.mu.Lock()
	c.chunks = map[[2]uint32][]byte{}
	c.mu.Unlock()
}

func (c *Conn) moveLocked(page, chunk int) {
	if c.buf == nil {
		c.errs = append(c.errs, errors.New("commit without a buffer"))
		return
	}
	ch, ok := c.buf.TryAcquireForReading(page, chunk)
	if !ok {
		c.errs = append(c.errs, fmt.Errorf("commit of chunk %d/%d that is not complete (bitmap %#x)", page, chunk, c.buf.Bitmap(page)))
		return
	}
	h := c.buf.ReadHeader(ch)
	key := [2]uint32{uint32(h.WriterID), h.ChunkID}
	if _, dup := c.chunks[key]; dup {
		c.errs = append(c.errs, fmt.Errorf("writer %d committed chunk id %d twice", h.WriterID, h.ChunkID))
	}
	if !c.s.opts.CountOnly {
		hdr := []byte{byte(h.Count), byte(h.Count >> 8), h.Flags}
		c.chunks[key] = append(hdr, c.buf.Payload(ch)...)
	}
	c.moved++
	if !c.buf.ReleaseFree(ch) {
		c.errs = append(c.errs, fmt.Errorf("chunk %d/%d changed while being read", page, chunk))
	}
}

func (c *Conn) command(cmd []byte, fd int) error {
	c.mu.Lock()
	req := c.asyncReq
	c.mu.Unlock()
	return c.write(ipc.Append(nil, &ipc.Frame{RequestID: req, Kind: ipc.KindInvokeMethodReply, Success: true, HasMore: true, Args: cmd}), fd)
}

// Config is a DataSourceConfig for the track_event data source.
type Config struct {
	Name              string // default "track_event"
	TargetBuffer      uint32
	SessionID         uint64
	Enabled, Disabled []string // TrackEventConfig categories
}

func (cfg Config) encode() []byte {
	name := cfg.Name
	if name == "" {
		name = "track_event"
	}
	b := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), name)
	b = append(b, pb.AppendVarint(nil, 2, uint64(cfg.TargetBuffer))...)
	b = append(b, pb.AppendVarint(nil, 4, cfg.SessionID)...)
	var te []byte
	for _, s := range cfg.Disabled {
		te = append(te, pb.AppendBytes(nil, 1, []byte(s))...)
	}
	for _, s := range cfg.Enabled {
		te = append(te, pb.AppendBytes(nil, 2, []byte(s))...)
	}
	return append(b, pb.AppendBytes(nil, 113, te)...)
}

// ensureSMB sends SetupTracing with a sealed memfd when the producer has no
// buffer yet.
func (c *Conn) ensureSMB() error {
	c.mu.Lock()
	sent := c.smbSent
	c.mu.Unlock()
	if sent {
		return nil
	}
	fd, err := memfd(c.s.opts.SMBSize)
	if err != nil {
		return err
	}
	if err := c.mapSMB(fd, c.s.opts.PageSize); err != nil {
		syscall.Close(fd)
		return err
	}
	c.mu.Lock()
	c.smbSent = true
	c.mu.Unlock()
	return c.command(pb.AppendBytes(nil, 3, pb.AppendVarint(nil, 1, uint64(c.s.opts.PageSize/1024))), fd)
}

func wait(ch chan struct{}, timeout time.Duration, what string) error {
	select {
	case <-ch:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("fakeservice: timed out waiting for %s", what)
	}
}

// StartDataSource sets up tracing if needed, sends SetupDataSource and
// StartDataSource, and waits for NotifyDataSourceStarted.
func (c *Conn) StartDataSource(id uint64, cfg Config, timeout time.Duration) error {
	if err := c.ensureSMB(); err != nil {
		return err
	}
	ch := make(chan struct{})
	c.mu.Lock()
	c.started[id] = ch
	c.mu.Unlock()
	body := append(pb.AppendVarint(nil, 1, id), pb.AppendBytes(nil, 2, cfg.encode())...)
	if err := c.command(pb.AppendBytes(nil, 6, body), -1); err != nil {
		return err
	}
	if err := c.command(pb.AppendBytes(nil, 1, body), -1); err != nil {
		return err
	}
	return wait(ch, timeout, "NotifyDataSourceStarted")
}

// StopDataSource sends StopDataSource and waits for NotifyDataSourceStopped.
func (c *Conn) StopDataSource(id uint64, timeout time.Duration) error {
	ch := make(chan struct{})
	c.mu.Lock()
	c.stopped[id] = ch
	c.mu.Unlock()
	if err := c.command(pb.AppendBytes(nil, 2, pb.AppendVarint(nil, 1, id)), -1); err != nil {
		return err
	}
	return wait(ch, timeout, "NotifyDataSourceStopped")
}

// Flush asks the instances to flush and waits for the CommitData carrying
// the flush request id.
func (c *Conn) Flush(ids []uint64, timeout time.Duration) error {
	ch := make(chan struct{})
	c.mu.Lock()
	c.nextFlush++
	req := c.nextFlush
	c.flushes[req] = ch
	c.mu.Unlock()
	var body []byte
	for _, id := range ids {
		body = append(body, pb.AppendVarint(nil, 1, id)...)
	}
	body = append(body, pb.AppendVarint(nil, 2, req)...)
	if err := c.command(pb.AppendBytes(nil, 5, body), -1); err != nil {
		return err
	}
	return wait(ch, timeout, "the flush acknowledgement")
}

// ClearIncrementalState sends ClearIncrementalState for ids.
func (c *Conn) ClearIncrementalState(ids []uint64) error {
	var body []byte
	for _, id := range ids {
		body = append(body, pb.AppendVarint(nil, 1, id)...)
	}
	return c.command(pb.AppendBytes(nil, 7, body), -1)
}

// SendRaw writes raw bytes to the producer (for malformed-frame tests).
func (c *Conn) SendRaw(b []byte) error { return c.write(b, -1) }

// Close drops the connection, as a dying service would.
func (c *Conn) Close() { c.uc.Close() }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Calls lists the methods invoked, in order.
func (c *Conn) Calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

// InitRequest and Descriptor return what the producer sent.
func (c *Conn) InitRequest() Init {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.init
}

func (c *Conn) Descriptor() Descriptor {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.desc
}

// ProducerSMB reports whether the producer's own buffer is in use.
func (c *Conn) ProducerSMB() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.producerSMB
}

// Errors returns protocol violations the fake saw.
func (c *Conn) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}

// Writers returns the registered trace writers and their target buffers.
func (c *Conn) Writers() map[uint16]uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := map[uint16]uint32{}
	for k, v := range c.writers {
		m[k] = v
	}
	return m
}

// Buffer returns the shared memory buffer (nil before setup).
func (c *Conn) Buffer() *shmabi.Buffer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf
}

// Stats are counts of what the fake moved and reassembled.
type Stats struct{ ChunksMoved, Fragmented int }

// Trace reassembles every moved chunk into a trace, as the service's trace
// buffer does: per writer in chunk-id order, fragments glued by the
// continuation flags. Each packet gets trusted_packet_sequence_id = writer
// id (a packet that already carries one is an error: traced rejects those).
func (c *Conn) Trace() ([]byte, Stats, error) { return c.trace(func(uint32) bool { return true }) }

// TraceOf is Trace restricted to the writers registered for one target
// buffer (one tracing session).
func (c *Conn) TraceOf(target uint32) ([]byte, Stats, error) {
	return c.trace(func(t uint32) bool { return t == target })
}

func (c *Conn) trace(want func(target uint32) bool) ([]byte, Stats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([][2]uint32, 0, len(c.chunks))
	for k := range c.chunks {
		if want(c.targets[uint16(k[0])]) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	st := Stats{ChunksMoved: c.moved}
	var out, partial []byte
	inPacket := false
	var lastW, lastID uint32
	for _, k := range keys {
		ch := c.chunks[k]
		count := int(uint16(ch[0]) | uint16(ch[1])<<8)
		flags := ch[2]
		data := ch[3:]
		if inPacket && (k[0] != lastW || k[1] != lastID+1 || flags&shmabi.FirstPacketContinuesFromPrevChunk == 0) {
			return nil, st, fmt.Errorf("writer %d chunk %d: fragment chain broken", k[0], k[1])
		}
		for j := range count {
			size, n := protowire.ConsumeVarint(data)
			if n < 0 || int(size) > len(data)-n {
				return nil, st, fmt.Errorf("writer %d chunk %d: bad fragment %d", k[0], k[1], j)
			}
			frag := data[n : n+int(size)]
			data = data[n+int(size):]
			continues := j == count-1 && flags&shmabi.LastPacketContinuesOnNextChunk != 0
			if j == 0 && flags&shmabi.FirstPacketContinuesFromPrevChunk != 0 {
				if !inPacket {
					return nil, st, fmt.Errorf("writer %d chunk %d: continuation without a start", k[0], k[1])
				}
				st.Fragmented++
			} else {
				partial = partial[:0]
			}
			partial = append(partial, frag...)
			inPacket = continues
			if continues {
				continue
			}
			var bad bool
			walk(partial, func(n protowire.Number, _ uint64, _ []byte) { bad = bad || n == 10 })
			if bad {
				return nil, st, fmt.Errorf("writer %d: a packet carries trusted_packet_sequence_id", k[0])
			}
			pkt := append(append([]byte(nil), partial...), pb.AppendVarint(nil, 10, uint64(k[0]))...)
			out = append(out, pb.AppendBytes(nil, 1, pkt)...)
		}
		lastW, lastID = k[0], k[1]
	}
	if inPacket {
		return nil, st, errors.New("trace ends inside a fragmented packet")
	}
	return out, st, nil
}

func memfd(size int) (int, error) {
	name, _ := syscall.BytePtrFromString("fake-traced-smb")
	fd, _, errno := syscall.Syscall(sysMemfdCreate, uintptr(unsafe.Pointer(name)), 0x3, 0) // MFD_CLOEXEC|MFD_ALLOW_SEALING
	if errno != 0 {
		return -1, errno
	}
	if err := syscall.Ftruncate(int(fd), int64(size)); err != nil {
		syscall.Close(int(fd))
		return -1, err
	}
	// F_ADD_SEALS: shrink | grow, as traced seals its buffers.
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, 1033, 0x2|0x4); errno != 0 {
		syscall.Close(int(fd))
		return -1, errno
	}
	return int(fd), nil
}
