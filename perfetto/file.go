package perfetto

import (
	"errors"
	"fmt"
	"os"
)

// fileOutput appends packets to a file. After a failed write it truncates the
// file back to the last complete packet so the trace still decodes. What it
// wrote long enough ago leaves the page cache as it goes (dropper).
type fileOutput struct {
	f    *os.File
	good int64
	drop *dropper
	exit *exitFile // nil when every exit-state slot is taken
	z    *deflater // nil: packets as they are
}

func (o *fileOutput) Write(seqID uint32, b []byte) error {
	if o.z != nil {
		b = o.z.packet(b)
	}
	o.exit.beginWrite(seqID, o.good)
	n, err := o.f.Write(b)
	if err != nil {
		o.exit.ended()
		_ = o.f.Truncate(o.good)
		return fmt.Errorf("write %s: %w", o.f.Name(), err)
	}
	o.good += int64(n)
	o.drop.wrote(o.good)
	return nil
}

func (o *fileOutput) Close() error {
	o.exit.ended()
	o.drop.stop()
	if err := o.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", o.f.Name(), err)
	}
	return nil
}

// StartFileSession starts a session writing a new trace file at path. An
// existing file is never overwritten or appended to: that is an error. The
// file is created owner-only (0600, whatever the umask): a trace holds the
// command line and every object name of the application. Only this process
// writes the file, so its track uuids are small (Options.SmallTrackUUIDs).
func StartFileSession(path string, opts Options) (*Session, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, existsError(path)
		}
		return nil, fmt.Errorf("cannot create trace file: %w", err)
	}
	opts = opts.withDefaults()
	opts.SmallTrackUUIDs = true
	out := newFileOutput(f, newExitFile(f.Fd(), opts.Sequences+1))
	if opts.Compress {
		out.z = newDeflater()
	}
	return startSession(path, out, opts, out.exit)
}

func newFileOutput(f *os.File, exit *exitFile) *fileOutput {
	return &fileOutput{f: f, drop: startDropper(int(f.Fd())), exit: exit}
}

// existsError is StartFileSession's error for a path that exists; it wraps
// os.ErrExist.
type existsError string

func (e existsError) Error() string {
	return fmt.Sprintf("trace file %s already exists; not overwriting it (remove it or put %%p in the name)", string(e))
}

func (e existsError) Unwrap() error { return os.ErrExist }
