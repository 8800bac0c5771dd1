// Package writelog records what a program wrote to its devices (every
// write, zeroing call, discard and flush, with offsets and bytes) and rebuilds the
// images a power cut could have left behind, the way dm-log-writes and
// CrashMonkey test kernel file systems.
//
// A log is a sequence of records appended to one file; several devices
// (and several processes, one after another) may share it. Offsets are
// absolute: from byte 0 of the file or block device the program opened.
//
// The crash model (see Replay): a flush is the only barrier. Writes issued
// since the last completed flush may reach stable storage in any subset
// and any order, each one possibly torn into units of a chosen size (a
// logical sector, or 4 KiB); writes before that flush are all on stable
// storage. A device opened with O_DSYNC makes every write durable when it
// returns, so each of its writes ends an epoch of its own. A discarded
// range may afterwards read back as zeros or as its old bytes, whatever
// flushes follow: Replay covers one world or the other (see
// Options.DiscardKeepsOld), and tests replay both.
package writelog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Kind is the type of a record.
type Kind byte

// Record kinds, as stored.
const (
	KindOpen    Kind = 'O' // a device was opened for writing
	KindWrite   Kind = 'W' // bytes were written
	KindZero    Kind = 'Z' // a range was zeroed by one call (fallocate, BLKZEROOUT)
	KindDiscard Kind = 'D' // a range was discarded by one call (BLKDISCARD, a punched hole)
	KindFlush   Kind = 'F' // a flush (fdatasync) completed
	KindClose   Kind = 'C' // the device was closed
)

func (k Kind) String() string {
	switch k {
	case KindOpen:
		return "open"
	case KindWrite:
		return "write"
	case KindZero:
		return "zero"
	case KindDiscard:
		return "discard"
	case KindFlush:
		return "flush"
	case KindClose:
		return "close"
	}
	return fmt.Sprintf("Kind(%#x)", byte(k))
}

// Record is one logged event.
type Record struct {
	Kind  Kind
	Dev   uint64 // the device, as numbered by its Open record
	Off   int64  // Write, Zero, Discard: absolute byte offset
	N     int64  // Write: len(Data); Zero, Discard: bytes zeroed or discarded; Open: the device's size
	Data  []byte // Write only
	Path  string // Open only: the path the program opened
	DSync bool   // Open only: every write is durable when it returns (O_DSYNC)
}

// maxRecordData bounds the bytes of one write record a reader accepts, so
// that a damaged log cannot make it allocate without limit.
const maxRecordData = 1 << 30

// Logger appends records to a log file. Its methods are safe for
// concurrent use: each record goes out in one write to a file opened with
// O_APPEND, so the records of several devices (or of programs run one
// after another) interleave whole.
type Logger struct {
	mu   sync.Mutex
	f    *os.File
	next uint64
	err  error // the first write error: later records are dropped
}

// Create opens path for appending records, creating it if needed.
func Create(path string) (*Logger, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("writelog: %w", err)
	}
	// Device numbers start from the process ID, so that programs sharing
	// a log one after another never reuse one.
	return &Logger{f: f, next: uint64(os.Getpid()) << 20}, nil
}

// Open logs the opening of a device of size bytes at path and returns the
// number its later records carry.
func (l *Logger) Open(path string, size int64, dsync bool) (uint64, error) {
	l.mu.Lock()
	l.next++
	dev := l.next
	l.mu.Unlock()
	return dev, l.put(Record{Kind: KindOpen, Dev: dev, N: size, Path: path, DSync: dsync})
}

// Write logs p written at absolute offset off.
func (l *Logger) Write(dev uint64, off int64, p []byte) error {
	return l.put(Record{Kind: KindWrite, Dev: dev, Off: off, N: int64(len(p)), Data: p})
}

// Zero logs n bytes at off made zero by one call.
func (l *Logger) Zero(dev uint64, off, n int64) error {
	return l.put(Record{Kind: KindZero, Dev: dev, Off: off, N: n})
}

// Discard logs n bytes at off discarded by one call.
func (l *Logger) Discard(dev uint64, off, n int64) error {
	return l.put(Record{Kind: KindDiscard, Dev: dev, Off: off, N: n})
}

// Flush logs a completed flush.
func (l *Logger) Flush(dev uint64) error { return l.put(Record{Kind: KindFlush, Dev: dev}) }

// Close logs the closing of a device.
func (l *Logger) Close(dev uint64) error { return l.put(Record{Kind: KindClose, Dev: dev}) }

// put encodes r and appends it in one write.
func (l *Logger) put(r Record) error {
	buf := encode(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if _, err := l.f.Write(buf); err != nil {
		l.err = fmt.Errorf("writelog: %w", err)
	}
	return l.err
}

// encode lays a record out as: kind, device (8 bytes), then per kind
// open: size (8), flags (1), path length (4), path; write: offset (8),
// length (4), bytes; zero, discard: offset (8), length (8); flush, close:
// nothing.
// Integers are little-endian.
func encode(r Record) []byte {
	le := binary.LittleEndian
	b := make([]byte, 0, 32+len(r.Data)+len(r.Path))
	b = append(b, byte(r.Kind))
	b = le.AppendUint64(b, r.Dev)
	switch r.Kind {
	case KindOpen:
		b = le.AppendUint64(b, uint64(r.N))
		var flags byte
		if r.DSync {
			flags |= 1
		}
		b = append(b, flags)
		b = le.AppendUint32(b, uint32(len(r.Path)))
		b = append(b, r.Path...)
	case KindWrite:
		b = le.AppendUint64(b, uint64(r.Off))
		b = le.AppendUint32(b, uint32(len(r.Data)))
		b = append(b, r.Data...)
	case KindZero, KindDiscard:
		b = le.AppendUint64(b, uint64(r.Off))
		b = le.AppendUint64(b, uint64(r.N))
	}
	return b
}

// fixedSize is the size of each kind's fields after the kind and device.
var fixedSize = map[Kind]int{KindOpen: 13, KindWrite: 12, KindZero: 16, KindDiscard: 16, KindFlush: 0, KindClose: 0}

// ErrShort says a buffer ends inside a record (a log still being written,
// or cut short).
var ErrShort = errors.New("writelog: the log ends inside a record")

// Decode decodes the record at the start of b and returns it with the
// number of bytes it takes. A record's Data aliases b. It returns ErrShort
// (wrapped) when b ends inside the record.
func Decode(b []byte) (Record, int, error) {
	le := binary.LittleEndian
	if len(b) < 9 {
		return Record{}, 0, ErrShort
	}
	rec := Record{Kind: Kind(b[0]), Dev: le.Uint64(b[1:])}
	nf, ok := fixedSize[rec.Kind]
	if !ok {
		return rec, 0, fmt.Errorf("writelog: unknown kind %#x", b[0])
	}
	if len(b) < 9+nf {
		return rec, 0, fmt.Errorf("%w (a %s record)", ErrShort, rec.Kind)
	}
	f := b[9 : 9+nf]
	var tail int64
	switch rec.Kind {
	case KindOpen:
		rec.N = int64(le.Uint64(f))
		rec.DSync = f[8]&1 != 0
		tail = int64(le.Uint32(f[9:]))
	case KindWrite:
		rec.Off = int64(le.Uint64(f))
		rec.N = int64(le.Uint32(f[8:]))
		tail = rec.N
	case KindZero, KindDiscard:
		rec.Off = int64(le.Uint64(f))
		rec.N = int64(le.Uint64(f[8:]))
	}
	if tail > maxRecordData || rec.Off < 0 || rec.N < 0 {
		return rec, 0, fmt.Errorf("writelog: %s record: implausible offset %d or length %d", rec.Kind, rec.Off, rec.N)
	}
	n := 9 + nf + int(tail)
	if len(b) < n {
		return rec, 0, fmt.Errorf("%w (a %s record)", ErrShort, rec.Kind)
	}
	if rec.Kind == KindOpen {
		rec.Path = string(b[9+nf : n])
	} else if rec.Kind == KindWrite {
		rec.Data = b[9+nf : n : n]
	}
	return rec, n, nil
}

// Read decodes every record of a log; on an error it returns the records
// before it too.
func Read(r io.Reader) ([]Record, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("writelog: %w", err)
	}
	return decodeAll(b)
}

// decodeAll decodes the records of a whole log held in b.
func decodeAll(b []byte) ([]Record, error) {
	var out []Record
	for pos := 0; pos < len(b); {
		rec, n, err := Decode(b[pos:])
		if err != nil {
			if errors.Is(err, ErrShort) {
				return out, fmt.Errorf("writelog: record at byte %d is cut short: %w", pos, err)
			}
			return out, fmt.Errorf("writelog: record at byte %d: %w", pos, err)
		}
		out = append(out, rec)
		pos += n
	}
	return out, nil
}

// ReadFile decodes the log at path.
func ReadFile(path string) ([]Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("writelog: %w", err)
	}
	return decodeAll(b)
}

// Op is one change to a device's contents, or a barrier, in log order.
type Op struct {
	Kind Kind   // KindWrite, KindZero, KindDiscard or KindFlush
	Off  int64  // absolute byte offset
	N    int64  // bytes
	Data []byte // KindWrite: the bytes; nil for KindZero and KindDiscard
}

// ErrNoDevice says a log holds no device opened on the path asked for.
var ErrNoDevice = errors.New("writelog: no device with that path in the log")

// Ops returns, in log order, the writes, zeroing calls, discards and flushes of every
// device the log says was opened at path (a program may open one image
// several times, one after another). A write to a device opened with
// O_DSYNC is followed by a flush: it was durable when it returned.
func Ops(recs []Record, path string) ([]Op, error) {
	devs := map[uint64]bool{} // chosen devices -> O_DSYNC
	var ops []Op
	for _, r := range recs {
		if r.Kind == KindOpen {
			if r.Path == path {
				devs[r.Dev] = r.DSync
			}
			continue
		}
		dsync, ok := devs[r.Dev]
		if !ok {
			continue
		}
		switch r.Kind {
		case KindWrite, KindZero, KindDiscard:
			ops = append(ops, Op{Kind: r.Kind, Off: r.Off, N: r.N, Data: r.Data})
			if dsync && r.Kind == KindWrite {
				ops = append(ops, Op{Kind: KindFlush})
			}
		case KindFlush:
			ops = append(ops, Op{Kind: KindFlush})
		}
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoDevice, path)
	}
	return ops, nil
}

// Counts returns the writes (zeroing calls and discards included) and
// flushes in ops.
func Counts(ops []Op) (writes, flushes int) {
	for _, o := range ops {
		if o.Kind == KindFlush {
			flushes++
		} else {
			writes++
		}
	}
	return writes, flushes
}

// Discards counts the discards in ops.
func Discards(ops []Op) int {
	n := 0
	for _, o := range ops {
		if o.Kind == KindDiscard {
			n++
		}
	}
	return n
}

// ReadOps reads the log at logPath and returns Ops for the device path
// (made absolute, as Device.Record logs it).
func ReadOps(logPath, path string) ([]Op, error) {
	recs, err := ReadFile(logPath)
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return Ops(recs, path)
}
