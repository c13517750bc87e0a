package system

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/system/internal/ipc"
	"github.com/vkgen/vkgen/perfetto/system/shmabi"
)

// beforeFlush is what BeforeFlush registered.
var beforeFlush atomic.Pointer[func()]

// BeforeFlush registers f to run before the producer flushes or stops a
// data source because the service asked it to: a layer that runs its hooks
// after the calls (layer.Drain) finishes the calls made before the request,
// so a session stopped right after a call still holds the call's events.
// f runs on the producer's control goroutine, which holds no lock an
// emitter needs. One function; a later one replaces it.
func BeforeFlush(f func()) { beforeFlush.Store(&f) }

func runBeforeFlush() {
	if f := beforeFlush.Load(); f != nil {
		(*f)()
	}
}

// EnvProducerSocket is the Perfetto SDK's own variable naming the socket.
const EnvProducerSocket = "PERFETTO_PRODUCER_SOCK_NAME"

// SocketPath returns the producer socket the Perfetto SDK would use on
// Linux: $PERFETTO_PRODUCER_SOCK_NAME, else /run/perfetto/traced-producer.sock
// when /run/perfetto/ exists, else /tmp/perfetto-producer.
func SocketPath() string {
	if s := os.Getenv(EnvProducerSocket); s != "" {
		// The SDK accepts a comma-separated list; the first is the local one.
		return strings.Split(s, ",")[0]
	}
	if st, err := os.Stat("/run/perfetto/"); err == nil && st.IsDir() {
		return "/run/perfetto/traced-producer.sock"
	}
	return "/tmp/perfetto-producer"
}

// Config tunes a Producer; the zero value gives the defaults.
type Config struct {
	Socket       string // default SocketPath()
	ProducerName string // default "vkgen:<process name>"
	// Categories are advertised in the data-source descriptor; default
	// AllCategories() at each connection.
	Categories []Category
	// PageSizeHint and SMBSizeHint are what InitializeConnection asks for;
	// the service decides (defaults 32 KiB pages, 4 MiB buffer).
	PageSizeHint, SMBSizeHint uint32
	// ProducerSMB offers a producer-allocated memfd buffer in
	// InitializeConnection; the service may decline and send its own.
	ProducerSMB bool
	// Backoff bounds between connection attempts (defaults 250 ms, 8 s).
	MinBackoff, MaxBackoff time.Duration
	// Timeout bounds the handshake and every socket write (default 2 s).
	Timeout time.Duration
	// Session configures the perfetto session of each data-source instance.
	Session perfetto.Options
	// StartupWindow and StartupBytes bound startup tracing: when both are
	// positive and the socket exists at Start, events are recorded into
	// memory (at most StartupBytes of packets) until the first data-source
	// instance starts, which gets them, or StartupWindow passes. Zero turns
	// it off; the layers use DefaultStartupWindow (configurable) and
	// DefaultStartupBytes.
	StartupWindow time.Duration
	StartupBytes  int
}

func (c *Config) defaults() {
	if c.Socket == "" {
		c.Socket = SocketPath()
	}
	if c.ProducerName == "" {
		c.ProducerName = "vkgen:" + filepath.Base(os.Args[0])
	}
	if c.PageSizeHint == 0 {
		c.PageSizeHint = 32 << 10
	}
	if c.SMBSizeHint == 0 {
		c.SMBSizeHint = 4 << 20
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = 250 * time.Millisecond
	}
	if c.MaxBackoff < c.MinBackoff {
		c.MaxBackoff = max(8*time.Second, c.MinBackoff)
	}
	if c.Timeout <= 0 {
		c.Timeout = 2 * time.Second
	}
}

// Producer connects to traced in the background, reconnecting with
// exponential backoff, and runs a perfetto session for every track_event
// data-source instance the service starts.
type Producer struct {
	cfg    Config
	stop   chan struct{}
	done   chan struct{}
	dialed chan struct{} // closed after the first connection attempt began

	mu      sync.Mutex
	conn    *conn
	startup *startup

	dialOnce    sync.Once
	connects    atomic.Uint64
	failedDials atomic.Uint64
	instances   atomic.Int64
	smbDropped  atomic.Uint64
}

// Start starts a producer. It never blocks on the service: connecting,
// handshakes and all socket I/O happen on background goroutines.
func Start(cfg Config) *Producer {
	cfg.defaults()
	p := &Producer{cfg: cfg, stop: make(chan struct{}), done: make(chan struct{}), dialed: make(chan struct{})}
	p.startup = startStartup(&p.cfg)
	go p.loop()
	return p
}

var (
	sharedMu sync.Mutex
	shared   *Producer
)

// StartShared starts the process-wide producer with cfg the first time it
// is called and returns it, later calls returning the same one (the layers
// call it once, from layer/tracing, which owns the configuration). With no
// service reachable it costs a connection attempt per backoff period on a
// background goroutine and nothing on the application's threads.
func StartShared(cfg Config) *Producer {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil {
		shared = Start(cfg)
	}
	return shared
}

// Close disconnects, stops every running instance's session and ends the
// background goroutines. Safe to call more than once.
func (p *Producer) Close() error {
	p.mu.Lock()
	select {
	case <-p.stop:
	default:
		close(p.stop)
		if p.conn != nil {
			p.conn.fail(errors.New("producer closed"))
		}
	}
	p.mu.Unlock()
	<-p.done
	if p.startup != nil {
		p.startup.end()
	}
	return nil
}

// Connected reports whether the producer has a live, initialised connection.
func (p *Producer) Connected() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conn != nil && p.conn.ready.Load()
}

// Connects counts successful handshakes (reconnections included).
func (p *Producer) Connects() uint64 { return p.connects.Load() }

// SMBDropped counts packets lost because the shared memory buffer was full,
// over every instance so far (each trace reports its own, with any other
// loss, on the perfetto.DroppedEventsName counter).
func (p *Producer) SMBDropped() uint64 { return p.smbDropped.Load() }

// Instances is the number of data-source instances running now.
func (p *Producer) Instances() int { return int(p.instances.Load()) }

func (p *Producer) stopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

func (p *Producer) loop() {
	defer close(p.done)
	backoff := p.cfg.MinBackoff
	wasUp := false
	defer p.markDialed()
	for !p.stopped() {
		up, err := p.runConn()
		if p.stopped() {
			return
		}
		if up {
			backoff = p.cfg.MinBackoff
			logf("disconnected from %s: %v; reconnecting", p.cfg.Socket, err)
		} else if wasUp {
			logf("cannot reach the tracing service at %s: %v; retrying", p.cfg.Socket, err)
		}
		wasUp = up
		// Full jitter keeps many traced processes from reconnecting in step.
		d := backoff/2 + rand.N(backoff/2+1)
		select {
		case <-p.stop:
			return
		case <-time.After(d):
		}
		backoff = min(backoff*2, p.cfg.MaxBackoff)
	}
}

// runConn runs one connection to its end; up reports whether the handshake
// completed.
func (p *Producer) runConn() (up bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	d := net.Dialer{Timeout: p.cfg.Timeout}
	nc, err := d.Dial("unix", p.cfg.Socket)
	if err != nil {
		p.failedDials.Add(1)
		p.markDialed()
		return false, err
	}
	c := newConn(p, nc.(*net.UnixConn))
	p.mu.Lock()
	if p.stopped() {
		p.mu.Unlock()
		nc.Close()
		return false, errors.New("producer closed")
	}
	p.conn = c
	p.mu.Unlock()
	p.markDialed()
	defer func() {
		p.mu.Lock()
		p.conn = nil
		p.mu.Unlock()
	}()
	if err := c.handshake(); err != nil {
		c.fail(err)
		c.teardown()
		return false, err
	}
	p.connects.Add(1)
	c.ready.Store(true)
	close(c.up)
	err = c.serve()
	return true, err
}

func (p *Producer) markDialed() {
	p.dialOnce.Do(func() { close(p.dialed) })
}

var logOut atomic.Pointer[io.Writer]

// SetLogOutput redirects the backend's log lines (default os.Stderr, each
// starting "vkgen: perfetto/system: "). It returns the previous writer.
func SetLogOutput(w io.Writer) io.Writer {
	old := logOut.Swap(&w)
	if old == nil {
		return os.Stderr
	}
	return *old
}

func logf(format string, args ...any) {
	w := io.Writer(os.Stderr)
	if p := logOut.Load(); p != nil {
		w = *p
	}
	fmt.Fprintf(w, "vkgen: perfetto/system: "+format+"\n", args...)
}

// conn is one connection to the service with its shared memory buffer.
type conn struct {
	p         *Producer
	uc        *net.UnixConn
	rd        *ipc.Reader
	serviceID uint32
	methods   map[string]uint32
	reqID     atomic.Uint64
	asyncReq  uint64
	regReq    uint64 // RegisterDataSource, answered while commands may arrive
	ready     atomic.Bool
	up        chan struct{} // closed when ready

	syncMu sync.Mutex
	syncs  map[uint64]chan struct{} // Sync requests waiting for their reply

	qmu   sync.Mutex
	queue []outFrame
	qsig  chan struct{}
	dead  chan struct{}
	once  sync.Once
	err   error // under qmu
	cmds  chan command

	smbMu    sync.RWMutex
	buf      *shmabi.Buffer // nil once the connection is torn down
	emulated bool           // shared-memory emulation: chunk data goes in CommitData
	mem      []byte
	page     atomic.Uint32
	wmu      sync.Mutex
	inUse    [1024]bool // writer ids 1..1023
	nextW    uint16
	chunkIDs [1024]uint32

	instances map[uint64]*instance // control goroutine only
	setups    map[uint64]dsConfig
}

type outFrame struct {
	b    []byte
	fd   int
	done chan struct{} // a marker, closed when the writer reaches it
}

type instance struct {
	id   uint64
	sess *perfetto.Session
}

const maxQueued = 4096 // frames waiting for the socket; more means a stuck service

func newConn(p *Producer, uc *net.UnixConn) *conn {
	return &conn{
		p: p, uc: uc, rd: ipc.NewReader(uc),
		qsig: make(chan struct{}, 1), dead: make(chan struct{}), up: make(chan struct{}), syncs: map[uint64]chan struct{}{},
		cmds: make(chan command, 1024), instances: map[uint64]*instance{}, setups: map[uint64]dsConfig{},
	}
}

func (c *conn) fail(err error) {
	c.once.Do(func() {
		c.qmu.Lock()
		c.err = err
		c.qmu.Unlock()
		close(c.dead)
		c.uc.Close()
	})
}

func (c *conn) failed() error {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.err
}

// send queues an InvokeMethod for the writer goroutine; it never blocks.
func (c *conn) send(method string, args []byte, dropReply bool) {
	f := ipc.Frame{RequestID: c.reqID.Add(1), Kind: ipc.KindInvokeMethod, ServiceID: c.serviceID, MethodID: c.methods[method], Args: args, DropReply: dropReply}
	c.queueFrame(outFrame{b: ipc.Append(nil, &f), fd: -1})
}

// queueFrame hands f to the writer goroutine; it never blocks.
func (c *conn) queueFrame(f outFrame) {
	c.qmu.Lock()
	if c.err != nil {
		c.qmu.Unlock()
		return
	}
	if len(c.queue) >= maxQueued {
		c.qmu.Unlock()
		c.fail(errors.New("the service is not reading its socket"))
		return
	}
	c.queue = append(c.queue, f)
	c.qmu.Unlock()
	c.wakeWriter()
}

func (c *conn) wakeWriter() {
	select {
	case c.qsig <- struct{}{}:
	default:
	}
}

func (c *conn) writer() {
	for {
		select {
		case <-c.dead:
			return
		case <-c.qsig:
		}
		c.qmu.Lock()
		q := c.queue
		c.queue = nil
		c.qmu.Unlock()
		for _, f := range q {
			if f.done != nil {
				close(f.done)
				continue
			}
			c.uc.SetWriteDeadline(time.Now().Add(c.p.cfg.Timeout))
			if err := ipc.Write(c.uc, f.b, f.fd); err != nil {
				c.fail(fmt.Errorf("write: %w", err))
				return
			}
		}
	}
}

// call sends a request and waits for its reply during the handshake, when
// nothing else reads the socket.
func (c *conn) call(f *ipc.Frame, fd int) (*ipc.Frame, error) {
	f.RequestID = c.reqID.Add(1)
	if err := ipc.Write(c.uc, ipc.Append(nil, f), fd); err != nil {
		return nil, err
	}
	for {
		body, err := c.rd.Next()
		if err != nil {
			return nil, err
		}
		r, err := ipc.Decode(body)
		if err != nil {
			return nil, err
		}
		if r.RequestID != f.RequestID {
			continue
		}
		if r.Kind == ipc.KindRequestError {
			return nil, fmt.Errorf("service error: %s", r.Error)
		}
		return r, nil
	}
}

func (c *conn) invoke(method string, args []byte, fd int) ([]byte, error) {
	r, err := c.call(&ipc.Frame{Kind: ipc.KindInvokeMethod, ServiceID: c.serviceID, MethodID: c.methods[method], Args: args}, fd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if r.Kind != ipc.KindInvokeMethodReply || !r.Success {
		return nil, fmt.Errorf("%s: the service refused the call", method)
	}
	return r.Args, nil
}

func (c *conn) handshake() error {
	cfg := &c.p.cfg
	c.uc.SetDeadline(time.Now().Add(cfg.Timeout))
	defer c.uc.SetDeadline(time.Time{})
	r, err := c.call(&ipc.Frame{Kind: ipc.KindBindService, ServiceName: ServiceName}, -1)
	if err != nil {
		return fmt.Errorf("BindService: %w", err)
	}
	if r.Kind != ipc.KindBindServiceReply || !r.Success {
		return fmt.Errorf("BindService(%s) refused", ServiceName)
	}
	for _, m := range requiredMethods {
		if _, ok := r.Methods[m]; !ok {
			return fmt.Errorf("the service has no %s method", m)
		}
	}
	c.serviceID, c.methods = r.ServiceID, r.Methods

	fd := -1
	var mem []byte
	if cfg.ProducerSMB {
		if fd, mem, err = createSMB(int(cfg.SMBSizeHint), int(cfg.PageSizeHint)); err != nil {
			logf("cannot create a shared memory buffer (%v); asking the service for one", err)
			fd = -1
		}
	}
	reply, err := c.invoke(mInitializeConnection, encodeInitializeConnection(cfg.ProducerName, cfg.PageSizeHint, cfg.SMBSizeHint, fd >= 0), fd)
	if fd >= 0 {
		syscall.Close(fd)
	}
	if err != nil {
		unmap(mem)
		return err
	}
	ir, err := decodeInitReply(reply)
	if err != nil {
		unmap(mem)
		return fmt.Errorf("InitializeConnection reply: %w", err)
	}
	switch {
	case ir.usingProducerSMB && mem != nil:
		if err := c.setSMB(mem, int(cfg.PageSizeHint)); err != nil {
			return err
		}
	case ir.shmemEmulation:
		// No memory is shared (a producer behind traced_relay): chunks are
		// written to private memory and travel inside CommitData.
		unmap(mem)
		if mem, err = privateSMB(int(cfg.SMBSizeHint)); err != nil {
			return err
		}
		if err := c.setSMB(mem, int(cfg.PageSizeHint)); err != nil {
			return err
		}
		c.emulated = true
	default:
		unmap(mem)
	}
	// The command stream opens before the data source is registered: traced
	// sets up and starts the instances of sessions already running as soon
	// as the data source registers, and drops every command sent before the
	// stream exists (ProducerIPCService needs async_producer_commands bound).
	c.asyncReq = c.reqID.Add(1)
	f := ipc.Frame{RequestID: c.asyncReq, Kind: ipc.KindInvokeMethod, ServiceID: c.serviceID, MethodID: c.methods[mGetAsyncCommand]}
	if err := ipc.Write(c.uc, ipc.Append(nil, &f), -1); err != nil {
		return err
	}
	cats := cfg.Categories
	if cats == nil {
		cats = AllCategories()
	}
	// The reply is read by serve, with the commands that may precede it.
	c.regReq = c.reqID.Add(1)
	f = ipc.Frame{RequestID: c.regReq, Kind: ipc.KindInvokeMethod, ServiceID: c.serviceID, MethodID: c.methods[mRegisterDataSource], Args: encodeRegisterDataSource(cats)}
	return ipc.Write(c.uc, ipc.Append(nil, &f), -1)
}

func (c *conn) setSMB(mem []byte, pageSize int) error {
	b, err := shmabi.New(mem, pageSize)
	if err != nil {
		unmap(mem)
		return err
	}
	c.smbMu.Lock()
	c.buf, c.mem = b, mem
	c.smbMu.Unlock()
	return nil
}

// serve runs the connection: the reader here, the writer and the command
// handler on their own goroutines. It returns when the connection ends,
// after every instance's session stopped and the buffer was unmapped.
func (c *conn) serve() error {
	go c.writer()
	ctl := make(chan struct{})
	go func() {
		defer close(ctl)
		c.control()
	}()
	err := c.read()
	c.fail(err)
	close(c.cmds)
	<-ctl
	c.teardown()
	return c.failed()
}

func (c *conn) read() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error reading the socket: %v", r)
		}
	}()
	for {
		body, err := c.rd.Next()
		if err != nil {
			return err
		}
		f, err := ipc.Decode(body)
		if err != nil {
			return err
		}
		switch {
		case f.Kind == ipc.KindRequestError:
			logf("service error for request %d: %s", f.RequestID, f.Error)
		case f.Kind != ipc.KindInvokeMethodReply:
		case f.RequestID == c.regReq:
			if msg, err := decodeRegisterReply(f.Args); !f.Success || err != nil || msg != "" {
				return fmt.Errorf("RegisterDataSource refused: %q %v", msg, err)
			}
		case f.RequestID == c.asyncReq:
			if !f.Success {
				return errors.New("the service closed the command stream")
			}
			cmd, err := decodeCommand(f.Args)
			if err != nil {
				return fmt.Errorf("async command: %w", err)
			}
			if cmd.kind == cmdSetupTracing {
				cmd.id = uint64(int64(c.rd.TakeFD())) // the buffer's fd rides on this frame
			}
			select {
			case c.cmds <- cmd:
			default:
				if cmd.kind == cmdSetupTracing {
					syscall.Close(int(int64(cmd.id)))
				}
				return errors.New("the service sends commands faster than they can run")
			}
		default:
			// A Sync reply: every command the service sent before it is
			// queued, so the synced command runs after them.
			if done := c.takeSync(f.RequestID); done != nil {
				select {
				case c.cmds <- command{kind: cmdSynced, done: done}:
				default:
					return errors.New("the service sends commands faster than they can run")
				}
			} else if !f.Success {
				logf("the service failed request %d", f.RequestID)
			}
		}
	}
}

func (c *conn) control() {
	for cmd := range c.cmds {
		if c.failed() != nil {
			if cmd.kind == cmdSetupTracing {
				syscall.Close(int(int64(cmd.id)))
			}
			continue
		}
		c.handle(cmd)
	}
}

func (c *conn) handle(cmd command) {
	switch cmd.kind {
	case cmdSetupTracing:
		fd := int(int64(cmd.id))
		if fd < 0 {
			if c.buf == nil {
				c.fail(errors.New("SetupTracing without a shared memory buffer"))
			}
			return
		}
		if c.buf != nil {
			syscall.Close(fd)
			return
		}
		mem, err := mapServiceSMB(fd)
		syscall.Close(fd)
		if err == nil {
			err = c.setSMB(mem, int(cmd.pageKB)*1024)
		}
		if err != nil {
			c.fail(fmt.Errorf("shared memory buffer: %w", err))
		}
	case cmdSetupDataSource:
		if cmd.config.name == DataSourceName {
			c.setups[cmd.id] = cmd.config
		}
	case cmdStartDataSource:
		c.start(cmd)
	case cmdStopDataSource:
		delete(c.setups, cmd.id)
		if in := c.instances[cmd.id]; in != nil {
			runBeforeFlush()
			delete(c.instances, cmd.id)
			in.sess.Stop()
			c.p.instances.Add(-1)
		}
		c.send(mNotifyDataSourceStopped, encodeInstanceID(cmd.id), true)
	case cmdFlush:
		runBeforeFlush()
		for _, id := range cmd.ids {
			if in := c.instances[id]; in != nil {
				in.sess.Flush()
			}
		}
		c.send(mCommitData, appendCommitData(nil, nil, cmd.requestID), true)
	case cmdSynced:
		for _, in := range c.instances {
			in.sess.Flush()
		}
		c.queueFrame(outFrame{done: cmd.done})
	case cmdClearIncrementalState:
		for _, id := range cmd.ids {
			if in := c.instances[id]; in != nil {
				in.sess.ClearIncrementalState()
			}
		}
	}
}

func (c *conn) start(cmd command) {
	cfg := cmd.config
	if cfg.name == "" {
		cfg = c.setups[cmd.id]
	}
	if cfg.name != DataSourceName || c.instances[cmd.id] != nil {
		return
	}
	if c.buf == nil {
		c.fail(errors.New("StartDataSource before the shared memory buffer was set up"))
		return
	}
	opts := c.p.cfg.Session
	opts.OmitSequenceID = true // traced sets it per writer and rejects ours
	opts.CategoryFilter = newCatFilter(cfg.trackEvent).sessionFilter()
	s, err := perfetto.StartSession(fmt.Sprintf("traced:%d/%d", cfg.sessionID, cmd.id), newOutput(c, cfg), opts)
	if err != nil {
		logf("data source %d: %v", cmd.id, err)
		return
	}
	c.instances[cmd.id] = &instance{id: cmd.id, sess: s}
	c.p.instances.Add(1)
	c.p.startup.handTo(c, cfg)
	// The replay is in the buffer and committed: now the service may count
	// the instance as started.
	c.send(mNotifyDataSourceStarted, encodeInstanceID(cmd.id), true)
}

// teardown stops every session of this connection (their last writes are
// discarded: the buffer is gone with the service) and unmaps the buffer.
func (c *conn) teardown() {
	c.smbMu.Lock()
	c.buf = nil
	mem := c.mem
	c.mem = nil
	c.smbMu.Unlock()
	for id, in := range c.instances {
		in.sess.Stop()
		delete(c.instances, id)
		c.p.instances.Add(-1)
	}
	c.rd.Close()
	unmap(mem)
}

func (c *conn) nextPage() int {
	return int(c.page.Add(1)) % c.buf.Pages()
}

// allocWriter picks a writer id round-robin (a just-freed id is reused as
// late as possible) and registers it with its target buffer.
func (c *conn) allocWriter(target uint32) (uint16, bool) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for range len(c.inUse) - 1 {
		c.nextW = c.nextW%uint16(len(c.inUse)-1) + 1
		if !c.inUse[c.nextW] {
			c.inUse[c.nextW] = true
			c.send(mRegisterTraceWriter, encodeTraceWriter(c.nextW, target, true), true)
			return c.nextW, true
		}
	}
	return 0, false
}

func (c *conn) freeWriter(id uint16) {
	c.wmu.Lock()
	c.inUse[id] = false
	c.wmu.Unlock()
	c.send(mUnregisterTraceWriter, encodeTraceWriter(id, 0, false), true)
}

// Chunk ids continue across reuses of a writer id so the service never sees
// an id sequence restart on a (producer, writer) pair.
func (c *conn) chunkID(w uint16) uint32 {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.chunkIDs[w]
}

func (c *conn) bumpChunkID(w uint16) {
	c.wmu.Lock()
	c.chunkIDs[w]++
	c.wmu.Unlock()
}
