package resize

import "fmt"

// Run is a run of consecutive clusters, numbered as the file system
// numbers them (both FAT and exFAT count the heap from 2).
type Run struct {
	Start, Len uint32
}

// End is the cluster after the run.
func (r Run) End() uint32 { return r.Start + r.Len }

// Move is a run of Len clusters copied from From to To.
type Move struct {
	From, To, Len uint32
}

// Relocate plans where the clusters of a file (runs, in file order) that
// lie at or past end go: take(n) hands out n free clusters below end (as
// one run or several, in file order) or fails. Clusters below end stay
// where they are. It returns the file's new runs and the copies that
// build them; take's error is returned as it is.
func Relocate(runs []Run, end uint32, take func(n uint32) ([]Run, error)) (out []Run, moves []Move, err error) {
	add := func(r Run) {
		if k := len(out); k > 0 && out[k-1].End() == r.Start {
			out[k-1].Len += r.Len
			return
		}
		out = append(out, r)
	}
	for _, r := range runs {
		if r.End() <= end {
			add(r)
			continue
		}
		past := r
		if r.Start < end {
			add(Run{r.Start, end - r.Start})
			past = Run{end, r.End() - end}
		}
		got, err := take(past.Len)
		if err != nil {
			return nil, nil, err
		}
		from := past.Start
		for _, g := range got {
			moves = append(moves, Move{From: from, To: g.Start, Len: g.Len})
			from += g.Len
			add(g)
		}
		if from != past.End() {
			return nil, nil, fmt.Errorf("resize: %d clusters were handed out for a run of %d", from-past.Start, past.Len)
		}
	}
	return out, moves, nil
}

// Copier copies cluster runs in large sequential requests through one
// bounded buffer: at most len(Buf) bytes are read, then written, at a
// time (Buf is at least one cluster).
type Copier struct {
	ClusterSize int64
	Offset      func(c uint32) int64 // a cluster's byte offset
	ReadAt      func(p []byte, off int64) (int, error)
	Write       func(off int64, p []byte) error
	Buf         []byte
	// Progress, if set, is told the bytes copied so far and Total.
	Progress    func(done, total int64)
	Done, Total int64
}

// Copy copies the clusters of m.
func (c *Copier) Copy(m Move) error {
	per := max(int64(len(c.Buf))/c.ClusterSize, 1)
	if int64(len(c.Buf)) < c.ClusterSize {
		c.Buf = make([]byte, c.ClusterSize)
	}
	for i := uint32(0); i < m.Len; {
		n := uint32(min(int64(m.Len-i), per))
		b := c.Buf[:int64(n)*c.ClusterSize]
		if _, err := c.ReadAt(b, c.Offset(m.From+i)); err != nil {
			return fmt.Errorf("resize: reading clusters %d-%d: %w", m.From+i, m.From+i+n-1, err)
		}
		if err := c.Write(c.Offset(m.To+i), b); err != nil {
			return fmt.Errorf("resize: writing clusters %d-%d: %w", m.To+i, m.To+i+n-1, err)
		}
		i += n
		c.Done += int64(len(b))
		if c.Progress != nil {
			c.Progress(c.Done, c.Total)
		}
	}
	return nil
}

// CopyBufSize is the copy buffer's size: large enough for sequential
// requests, small enough for the memory bound.
const CopyBufSize = 4 << 20
