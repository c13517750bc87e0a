// Package ipc is Perfetto's UNIX-socket IPC framing, shared by the producer
// in perfetto/system and the fake service its tests run: each frame is a
// 4-byte little-endian length followed by one IPCFrame message
// (protos/perfetto/ipc/wire_protocol.proto), and file descriptors travel as
// SCM_RIGHTS ancillary data on the bytes of a frame. It owns framing and fd
// passing only, not the ProducerPort messages inside the frames.
package ipc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"syscall"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vkgen/vkgen/perfetto/internal/pb"
)

// MaxFrameSize bounds a frame's length; anything larger is a protocol error
// (traced's own receive buffer is 128 KiB, so this is generous).
const MaxFrameSize = 1 << 20

// Kind is the member of IPCFrame's msg oneof a frame carries.
type Kind int

const (
	KindUnknown           Kind = 0
	KindBindService       Kind = 3
	KindBindServiceReply  Kind = 4
	KindInvokeMethod      Kind = 5
	KindInvokeMethodReply Kind = 6
	KindRequestError      Kind = 7
)

// Frame is a decoded IPCFrame; only the fields of its Kind are meaningful.
type Frame struct {
	RequestID uint64
	Kind      Kind

	ServiceName string            // BindService
	Success     bool              // BindServiceReply, InvokeMethodReply
	ServiceID   uint32            // BindServiceReply, InvokeMethod
	Methods     map[string]uint32 // BindServiceReply: name -> id
	MethodID    uint32            // InvokeMethod
	Args        []byte            // InvokeMethod.args_proto / InvokeMethodReply.reply_proto
	DropReply   bool              // InvokeMethod
	HasMore     bool              // InvokeMethodReply
	Error       string            // RequestError
}

// Append encodes f, length prefix included, onto b.
func Append(b []byte, f *Frame) []byte {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, f.RequestID)
	var m []byte
	switch f.Kind {
	case KindBindService:
		m = pb.AppendString(m, 1, f.ServiceName)
	case KindBindServiceReply:
		m = pb.AppendBool(m, 1, f.Success)
		m = pb.AppendVarint(m, 2, uint64(f.ServiceID))
		for name, id := range f.Methods {
			var mi []byte
			mi = pb.AppendVarint(mi, 1, uint64(id))
			mi = pb.AppendString(mi, 2, name)
			m = pb.AppendBytes(m, 3, mi)
		}
	case KindInvokeMethod:
		m = pb.AppendVarint(m, 1, uint64(f.ServiceID))
		m = pb.AppendVarint(m, 2, uint64(f.MethodID))
		m = pb.AppendBytes(m, 3, f.Args)
		if f.DropReply {
			m = pb.AppendBool(m, 4, true)
		}
	case KindInvokeMethodReply:
		m = pb.AppendBool(m, 1, f.Success)
		if f.HasMore {
			m = pb.AppendBool(m, 2, true)
		}
		m = pb.AppendBytes(m, 3, f.Args)
	case KindRequestError:
		m = pb.AppendString(m, 1, f.Error)
	}
	if f.Kind != KindUnknown {
		b = pb.AppendBytes(b, protowire.Number(f.Kind), m)
	}
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// Decode parses one IPCFrame body (without its length prefix).
func Decode(body []byte) (*Frame, error) {
	f := &Frame{}
	err := pb.Walk(body, func(num protowire.Number, v uint64, data []byte) error {
		switch num {
		case 2:
			f.RequestID = v
		case 3, 4, 5, 6, 7:
			f.Kind = Kind(num)
			return f.decodeMsg(data)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ipc: malformed frame: %w", err)
	}
	return f, nil
}

func (f *Frame) decodeMsg(m []byte) error {
	return pb.Walk(m, func(num protowire.Number, v uint64, data []byte) error {
		switch f.Kind {
		case KindBindService:
			if num == 1 {
				f.ServiceName = string(data)
			}
		case KindBindServiceReply:
			switch num {
			case 1:
				f.Success = v != 0
			case 2:
				f.ServiceID = uint32(v)
			case 3:
				var id uint32
				var name string
				if err := pb.Walk(data, func(n protowire.Number, v uint64, d []byte) error {
					if n == 1 {
						id = uint32(v)
					} else if n == 2 {
						name = string(d)
					}
					return nil
				}); err != nil {
					return err
				}
				if f.Methods == nil {
					f.Methods = map[string]uint32{}
				}
				f.Methods[name] = id
			}
		case KindInvokeMethod:
			switch num {
			case 1:
				f.ServiceID = uint32(v)
			case 2:
				f.MethodID = uint32(v)
			case 3:
				f.Args = data
			case 4:
				f.DropReply = v != 0
			}
		case KindInvokeMethodReply:
			switch num {
			case 1:
				f.Success = v != 0
			case 2:
				f.HasMore = v != 0
			case 3:
				f.Args = data
			}
		case KindRequestError:
			if num == 1 {
				f.Error = string(data)
			}
		}
		return nil
	})
}

// ErrFrameTooLarge reports a length prefix beyond MaxFrameSize.
var ErrFrameTooLarge = errors.New("ipc: frame larger than the limit")

// Reader splits a socket's byte stream into frames and collects the file
// descriptors that arrive with them. Not safe for concurrent use.
type Reader struct {
	c   *net.UnixConn
	buf []byte
	tmp []byte
	oob []byte
	fds []int
}

func NewReader(c *net.UnixConn) *Reader {
	return &Reader{c: c, tmp: make([]byte, 32<<10), oob: make([]byte, syscall.CmsgSpace(4*8))}
}

// Next returns the next frame body. Received descriptors accumulate and are
// handed out by TakeFD; the caller must close those it does not keep.
func (r *Reader) Next() ([]byte, error) {
	for {
		if len(r.buf) >= 4 {
			n := binary.LittleEndian.Uint32(r.buf)
			if n > MaxFrameSize {
				return nil, fmt.Errorf("%w: %d bytes", ErrFrameTooLarge, n)
			}
			if len(r.buf) >= 4+int(n) {
				body := append([]byte(nil), r.buf[4:4+n]...)
				r.buf = r.buf[:copy(r.buf, r.buf[4+n:])]
				return body, nil
			}
		}
		n, oobn, _, _, err := r.c.ReadMsgUnix(r.tmp, r.oob)
		n, oobn = max(n, 0), max(oobn, 0)
		if oobn > 0 {
			r.parseRights(r.oob[:oobn])
		}
		r.buf = append(r.buf, r.tmp[:n]...)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, errors.New("ipc: connection closed")
		}
	}
}

func (r *Reader) parseRights(oob []byte) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	for i := range msgs {
		if fds, err := syscall.ParseUnixRights(&msgs[i]); err == nil {
			r.fds = append(r.fds, fds...)
		}
	}
}

// TakeFD returns the oldest received descriptor not yet taken, or -1.
func (r *Reader) TakeFD() int {
	if len(r.fds) == 0 {
		return -1
	}
	fd := r.fds[0]
	r.fds = r.fds[1:]
	return fd
}

// Close closes every descriptor received and not taken.
func (r *Reader) Close() {
	for _, fd := range r.fds {
		syscall.Close(fd)
	}
	r.fds = nil
}

// Write sends encoded frames, with fd (if >= 0) attached as SCM_RIGHTS.
func Write(c *net.UnixConn, b []byte, fd int) error {
	var oob []byte
	if fd >= 0 {
		oob = syscall.UnixRights(fd)
	}
	for len(b) > 0 {
		n, _, err := c.WriteMsgUnix(b, oob, nil)
		if err != nil {
			return err
		}
		b, oob = b[n:], nil
	}
	return nil
}
