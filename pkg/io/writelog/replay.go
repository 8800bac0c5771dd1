package writelog

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
)

// Options choose which crash states Replay builds.
type Options struct {
	// Unit is the size in which a write may be torn: a logical sector
	// (512) or 4096. Units are aligned to absolute offsets. 0 means 512.
	Unit int64
	// Samples is the number of random states per flush epoch: each piece
	// of each write of the epoch is kept or lost at random, and the writes
	// land in log order or shuffled (where they overlap, the last to land
	// wins).
	Samples int
	// Family caps the deterministic states per epoch that keep exactly one
	// write, or all but one (0: every write of the epoch gets both). Over
	// the cap the writes are chosen at random.
	Family int
	// PrefixOnly builds only the in-order prefixes of the log: what a
	// process crash (SIGKILL) can leave, where everything issued reaches
	// the device in order.
	PrefixOnly bool
	// Seed makes the random choices repeatable.
	Seed uint64
	// DiscardKeepsOld replays the world where every discarded range reads
	// back its old bytes: discards are left out. Without it a discard
	// lands as zeros, like a zeroing call (or is lost, in the states that
	// lose writes). A device may do either, so tests replay a log with
	// discards both ways.
	DiscardKeepsOld bool
}

// State describes one crash state Replay built.
type State struct {
	Epoch  int    // flush epoch (0-based): everything before it is on stable storage
	Index  int    // running number over the whole replay
	Desc   string // how the epoch's writes were applied
	Writes int    // writes of the epoch that (at least partly) landed
}

func (s State) String() string {
	return fmt.Sprintf("state %d (epoch %d: %s)", s.Index, s.Epoch, s.Desc)
}

// piece is the part of one op that one state applies.
type piece struct {
	op     int // index in the epoch
	off, n int64
	data   []byte // nil: zeros
}

// Replay turns the image file at path (holding the device's contents
// before the logged run) into every crash state that opts ask for, one
// after another, and calls check on each while the file holds it. The
// states of one epoch are built on top of every earlier epoch, fully
// applied:
//
//   - every in-order prefix of the epoch's writes;
//   - unless opts.PrefixOnly: each write alone, and all writes but one
//     (up to opts.Family of each), and opts.Samples random subsets of the
//     writes torn into opts.Unit pieces, in log order or shuffled.
//
// The file ends holding the complete log applied. Replay stops at the
// first error check returns, wrapped with the state's description. It
// returns the number of states checked.
func Replay(path string, ops []Op, opts Options, check func(State) error) (int, error) {
	if opts.Unit <= 0 {
		opts.Unit = 512
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("writelog: %w", err)
	}
	defer f.Close()
	r := &replayer{f: f, opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, 0x5eed)), check: check}
	// The image as it was before the run is a crash state too.
	if err := r.try(0, "before the first write", 0, nil); err != nil {
		return r.n, err
	}
	epoch := 0
	var cur []Op
	for _, o := range ops {
		if o.Kind == KindDiscard && opts.DiscardKeepsOld {
			continue
		}
		if o.Kind == KindFlush {
			if err := r.epoch(epoch, cur); err != nil {
				return r.n, err
			}
			if len(cur) > 0 {
				epoch++
			}
			cur = cur[:0]
			continue
		}
		cur = append(cur, o)
	}
	if err := r.epoch(epoch, cur); err != nil {
		return r.n, err
	}
	return r.n, nil
}

type replayer struct {
	f     *os.File
	opts  Options
	rng   *rand.Rand
	check func(State) error
	n     int
}

// epoch checks the states of one epoch's ops and leaves them applied.
func (r *replayer) epoch(e int, ops []Op) error {
	if len(ops) == 0 {
		return nil
	}
	if !r.opts.PrefixOnly {
		if err := r.families(e, ops); err != nil {
			return err
		}
		for s := 0; s < r.opts.Samples; s++ {
			keep := r.rng.Float64()
			shuffled := r.rng.IntN(2) == 0
			order := make([]int, len(ops))
			for i := range order {
				order[i] = i
			}
			if shuffled {
				r.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			var ps []piece
			landed := map[int]bool{}
			for _, i := range order {
				for _, p := range tear(i, ops[i], r.opts.Unit) {
					if r.rng.Float64() < keep {
						ps = append(ps, p)
						landed[i] = true
					}
				}
			}
			desc := fmt.Sprintf("random sample %d: %d of %d writes torn into %d-byte units, %.0f%% of units kept", s+1, len(landed), len(ops), r.opts.Unit, keep*100)
			if shuffled {
				desc += ", shuffled"
			}
			if err := r.try(e, desc, len(landed), ps); err != nil {
				return err
			}
		}
	}
	// In-order prefixes, the whole epoch last; each builds on the one
	// before, so the file keeps them.
	for k := range ops {
		if err := r.apply(whole(k, ops[k]), nil); err != nil {
			return err
		}
		r.n++
		st := State{Epoch: e, Index: r.n, Desc: fmt.Sprintf("the first %d of %d writes, in order", k+1, len(ops)), Writes: k + 1}
		if err := r.check(st); err != nil {
			return fmt.Errorf("%v: %w", st, err)
		}
	}
	return nil
}

// families checks each write alone and all writes but one.
func (r *replayer) families(e int, ops []Op) error {
	if len(ops) < 2 {
		return nil
	}
	idx := make([]int, len(ops))
	for i := range idx {
		idx[i] = i
	}
	if c := r.opts.Family; c > 0 && len(idx) > c {
		r.rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:c]
		slices.Sort(idx)
	}
	for _, i := range idx {
		if err := r.try(e, fmt.Sprintf("only write %d of %d (%s)", i+1, len(ops), describe(ops[i])), 1, whole(i, ops[i])); err != nil {
			return err
		}
	}
	if len(ops) < 3 {
		return nil // all but one of two is one alone
	}
	for _, i := range idx {
		var ps []piece
		for j, o := range ops {
			if j != i {
				ps = append(ps, whole(j, o)...)
			}
		}
		if err := r.try(e, fmt.Sprintf("every write but %d of %d (%s)", i+1, len(ops), describe(ops[i])), len(ops)-1, ps); err != nil {
			return err
		}
	}
	return nil
}

func describe(o Op) string {
	return fmt.Sprintf("%s of %d bytes at byte %d", o.Kind, o.N, o.Off)
}

// try applies ps on top of the file, checks the state and undoes ps.
func (r *replayer) try(e int, desc string, writes int, ps []piece) error {
	var undo []piece
	if err := r.apply(ps, &undo); err != nil {
		return err
	}
	r.n++
	st := State{Epoch: e, Index: r.n, Desc: desc, Writes: writes}
	cerr := r.check(st)
	// Undo in reverse, so that overlapping pieces restore the oldest bytes.
	slices.Reverse(undo)
	if err := r.apply(undo, nil); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("%v: %w", st, cerr)
	}
	return nil
}

// apply writes ps to the file in order (merging pieces that continue
// each other); with undo, it first saves the bytes each piece replaces.
func (r *replayer) apply(ps []piece, undo *[]piece) error {
	for _, p := range coalesce(ps) {
		if undo != nil {
			old := make([]byte, p.n)
			if _, err := r.f.ReadAt(old, p.off); err != nil {
				return fmt.Errorf("writelog: reading %d bytes at %d of the image: %w", p.n, p.off, err)
			}
			*undo = append(*undo, piece{off: p.off, n: p.n, data: old})
		}
		if err := r.write(p); err != nil {
			return err
		}
	}
	return nil
}

// zeros is what a zeroing piece writes, a chunk at a time; made when a
// replay first needs it, not in every command that links this package.
var zeros = sync.OnceValue(func() []byte { return make([]byte, 1<<20) })

func (r *replayer) write(p piece) error {
	for done := int64(0); done < p.n; {
		chunk := p.data
		if chunk == nil {
			z := zeros()
			chunk = z[:min(p.n-done, int64(len(z)))]
		} else {
			chunk = chunk[done:]
		}
		n, err := r.f.WriteAt(chunk, p.off+done)
		if err != nil {
			return fmt.Errorf("writelog: writing %d bytes at %d of the image: %w", p.n, p.off, err)
		}
		done += int64(n)
	}
	return nil
}

// coalesce merges runs of pieces where each starts where the one before
// ends and both carry bytes, or both are zeros.
func coalesce(ps []piece) []piece {
	var out []piece
	owned := false // out's last piece has bytes of its own (not an op's)
	for _, p := range ps {
		if k := len(out); k > 0 && out[k-1].off+out[k-1].n == p.off && (out[k-1].data == nil) == (p.data == nil) {
			q := &out[k-1]
			if q.data != nil {
				if !owned {
					q.data = append(make([]byte, 0, 2*(q.n+p.n)), q.data...)
					owned = true
				}
				q.data = append(q.data, p.data...)
			}
			q.n += p.n
			continue
		}
		out = append(out, p)
		owned = false
	}
	return out
}

// whole is op i applied entirely.
func whole(i int, o Op) []piece {
	return []piece{{op: i, off: o.Off, n: o.N, data: o.Data}}
}

// tear cuts op i at every multiple of unit.
func tear(i int, o Op, unit int64) []piece {
	var out []piece
	for s := o.Off; s < o.Off+o.N; {
		e := min((s/unit+1)*unit, o.Off+o.N)
		p := piece{op: i, off: s, n: e - s}
		if o.Data != nil {
			p.data = o.Data[s-o.Off : e-o.Off]
		}
		out = append(out, p)
		s = e
	}
	return out
}
