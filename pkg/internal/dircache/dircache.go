// Package dircache keeps the directories a volume has loaded within a
// memory budget, for pkg/fat and pkg/exfat alike.
//
// A codec keeps its loaded directories in a map of its own, so that path
// lookups and inserts cost O(1), and embeds a Node in each. The Cache
// charges each directory for its memory, keeps them in least-recently-used
// order, and, at the safe points the codec chooses (the start of a public
// call, when no directory is held across it), offers the codec the oldest
// ones to drop until the charge is within the budget. What may not be
// dropped is the codec's to say: a pinned Node (held by an open writer, a
// loaded child that points at it, a change waiting for a later commit
// phase) or a directory with changes not yet written.
//
// A Cache is not safe for concurrent use; it shares its volume's lock.
package dircache

import "container/list"

// The budgets both codecs keep their caches within: Budget for the
// directories that may be dropped, DirtyBudget for those with changes not
// yet written (one of FAT's largest directories), over which a writer
// commits first (SettleWrite), so a copy of a million files into a
// thousand folders commits every 20,000 names or so instead of holding
// them all. At 12 and 24 MiB, exFAT's copy of 100,000 folders peaked at
// 86-94 MiB (the parents of the new folders and their names, waiting for
// a commit); at 6 and 12 MiB at 57-62 MiB, at 4 and 8 MiB at 54. Budget
// stays 6 MiB: at 4, copying out 2,500 nested folders (the damaged corpus'
// deep-dirs) read every ancestor again for each level and took twice as
// long, past the corpus test's 20-second hang limit on a loaded machine.
const (
	Budget      int64 = 6 << 20
	DirtyBudget int64 = 8 << 20
)

// CostFactor is what a directory is charged per byte of its raw entries:
// the entries, the records parsed from them and the name index over them.
const CostFactor = 4

// Node is a directory's place in the cache. Its zero value is a directory
// that is not cached.
type Node struct {
	owner any
	cost  int64
	pins  int
	elem  *list.Element
}

// Pin keeps the directory in memory until the matching Unpin.
func (n *Node) Pin() { n.pins++ }

// Unpin undoes one Pin.
func (n *Node) Unpin() {
	if n.pins > 0 {
		n.pins--
	}
}

// Pinned reports whether something holds the directory in memory.
func (n *Node) Pinned() bool { return n.pins > 0 }

// Cached reports whether the node is on a cache's list.
func (n *Node) Cached() bool { return n.elem != nil }

// Cache is the list of cached directories and what they are charged.
// Its zero value is an empty cache.
type Cache struct {
	lru      list.List
	cost     int64
	settleAt int64 // the charge at which Settle tries again
}

// Add puts owner's node n on the list as the most recently used, charged
// CostFactor times rawBytes. A node already on the list is recharged.
func (c *Cache) Add(n *Node, owner any, rawBytes int) {
	if n.elem != nil {
		c.Remove(n)
	}
	n.owner = owner
	n.cost = CostFactor * int64(rawBytes)
	c.cost += n.cost
	n.elem = c.lru.PushFront(n)
}

// Touch marks n the most recently used.
func (c *Cache) Touch(n *Node) {
	if n.elem != nil {
		c.lru.MoveToFront(n.elem)
	}
}

// Remove takes n off the list and its charge off the total.
func (c *Cache) Remove(n *Node) {
	if n.elem != nil {
		c.lru.Remove(n.elem)
		n.elem = nil
		c.cost -= n.cost
		n.cost = 0
	}
}

// Grew charges n for raw bytes it gained.
func (c *Cache) Grew(n *Node, rawBytes int) {
	if n.elem != nil {
		n.cost += CostFactor * int64(rawBytes)
		c.cost += CostFactor * int64(rawBytes)
	}
}

// Cost is what the cached directories are charged.
func (c *Cache) Cost() int64 { return c.cost }

// Len is the number of cached directories.
func (c *Cache) Len() int { return c.lru.Len() }

// Settle offers the least recently used directories to drop, oldest
// first, until the charge is within budget, but never the most recently
// used one: a folder larger than the budget on its own (60,000 names on
// exFAT) would otherwise be read again, whole, for each of its files that
// a copy looks up. drop is given each node's owner and returns whether the
// codec let it go (it then forgets the directory itself, and keeps what is
// pinned); the node leaves the list when it did. Dropping a directory may
// let go of what it pinned (an exFAT directory pins its parent, which is
// older on the list than its children), so a pass that dropped something
// and is still over budget is followed by another. A pass that cannot get
// under the budget is not tried again until the charge has grown by an
// eighth of it, or Reset says that directories became droppable.
func (c *Cache) Settle(budget int64, drop func(owner any) bool) {
	if c.cost <= max(budget, c.settleAt) {
		return
	}
	for dropped := true; dropped && c.cost > budget; {
		dropped = false
		for e := c.lru.Back(); e != nil && e != c.lru.Front() && c.cost > budget; {
			prev := e.Prev()
			n := e.Value.(*Node)
			if drop(n.owner) {
				c.Remove(n)
				dropped = true
			}
			e = prev
		}
	}
	c.settleAt = 0
	if c.cost > budget {
		c.settleAt = c.cost + budget/8
	}
}

// Reset lets the next Settle try again whatever the charge (after a
// commit made directories clean).
func (c *Cache) Reset() { c.settleAt = 0 }

// SettleWrite is settle for a call that changes the volume. settle is the
// codec's pass over Settle; when what it could not drop (directories with
// changes, and those pinned until a commit) stays charged more than
// dirtyBudget and pending says the codec has changes it may commit now (a
// writable, open volume with changed directories), commit writes
// everything (in the phases of the codec's Commit), so that they become
// clean, and settle runs again to drop them. The most recently used
// directory is not counted: Settle keeps it whatever a commit does, so a
// folder charged more than dirtyBudget on its own (60,000 names on exFAT)
// would otherwise have every one of its files committed on its own.
func (c *Cache) SettleWrite(dirtyBudget int64, settle func(), pending bool, commit func() error) error {
	settle()
	if c.cost-c.frontCost() <= dirtyBudget || !pending {
		return nil
	}
	if err := commit(); err != nil {
		return err
	}
	c.Reset()
	settle()
	return nil
}

// frontCost is what the most recently used directory is charged.
func (c *Cache) frontCost() int64 {
	if e := c.lru.Front(); e != nil {
		return e.Value.(*Node).cost
	}
	return 0
}
