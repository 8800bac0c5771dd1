package cp

import "hash/fnv"

// The registry of the names a copy puts in each destination directory
// (dirNames), for clashes between sources of one run. A copy of a million
// files registers a million names, so an entry is small: a 64-bit hash of
// the name's fold and the index of the item that takes it, from which the
// name and the source are worked out again when a clash needs them.

// dirNames is what one destination directory will hold.
type dirNames struct {
	fresh  bool                // made by this copy: nothing to look up on the side
	fold   func(string) string // the side's fold: the key under which names clash
	names  map[uint64]int32    // hash of a key -> the item taking it, or -1-k for loose[k] of the plan
	others map[string]*planned // keys whose hash a different key holds
}

type planned struct {
	src  string // the source, as shown
	name string // the name stored
	dir  bool
}

// pendingName is a name place settled but whose item is not made yet:
// the caller that makes it claims it (claim), else it is kept loose.
type pendingName struct {
	d   *dirNames
	key string
	pl  planned
}

func keyHash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// lookup returns what the run put under key in d, or nil.
func (p *Plan) lookup(d *dirNames, key string) *planned {
	if p.pending != nil && p.pending.d == d && p.pending.key == key {
		return &p.pending.pl
	}
	if x, ok := d.names[keyHash(key)]; ok {
		if pl := p.plannedAt(x); d.fold(pl.name) == key {
			return pl
		}
	}
	return d.others[key]
}

// plannedAt works out registry entry x.
func (p *Plan) plannedAt(x int32) *planned {
	if x < 0 {
		return &p.loose[-1-x]
	}
	it := p.items.at(int(x))
	src, dst := p.ends2(it)
	return &planned{src: src.show, name: dst.side.base(dst.path), dir: it.kind == itemMkdir}
}

// register records that the run puts pl under key in d: as the item at
// index item (>= 0), or loose.
func (p *Plan) registerName(d *dirNames, key string, pl planned, item int) {
	if p.lookup(d, key) != nil {
		return
	}
	x := int32(item)
	if item < 0 {
		p.loose = append(p.loose, pl)
		x = int32(-len(p.loose))
	}
	if d.names == nil {
		d.names = map[uint64]int32{}
	}
	h := keyHash(key)
	if _, taken := d.names[h]; taken {
		if d.others == nil {
			d.others = map[string]*planned{}
		}
		d.others[key] = &pl
		return
	}
	d.names[h] = x
	if x >= 0 {
		p.items.at(item).named = true
	}
}

// settle keeps a pending name loose: its caller made no item.
func (p *Plan) settleName() {
	if q := p.pending; q != nil {
		p.pending = nil
		p.registerName(q.d, q.key, q.pl, -1)
	}
}

// claim gives the pending name to the item just made (the last one).
func (p *Plan) claim() {
	if q := p.pending; q != nil {
		p.pending = nil
		p.registerName(q.d, q.key, q.pl, p.items.len()-1)
	}
}
