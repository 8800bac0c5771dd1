package fsutil

// NameIndex finds a directory's members by name, as the codec compares
// names (FAT by its FoldName, exFAT by the volume's up-case table), for
// both codecs. It keys a member by a 64-bit hash of its folded name, not
// by the folded name itself: a folder of 60,000 names would otherwise
// hold a copy of each. The member found under a hash is checked by the
// codec (named); a name whose hash another name's member holds goes into
// a map of its own, keyed by its folded form (fold), which only such rare
// names build.
//
// The zero value is an empty index.
type NameIndex[R comparable] struct {
	m       map[uint64]R
	collide map[string]R
}

// Sized makes an index with room for n names.
func (x *NameIndex[R]) Sized(n int) {
	x.m, x.collide = make(map[uint64]R, n), nil
}

// Len is the number of names indexed.
func (x *NameIndex[R]) Len() int { return len(x.m) + len(x.collide) }

// Add indexes r under a name whose folded form hashes to h: named says
// whether a member bears that name, fold is the folded name. A member of
// the same name already indexed is replaced.
func (x *NameIndex[R]) Add(h uint64, r R, named func(R) bool, fold func() string) {
	var zero R
	if x.m == nil {
		x.m = map[uint64]R{}
	}
	if o, ok := x.m[h]; ok && o != r && o != zero && !named(o) {
		if x.collide == nil {
			x.collide = map[string]R{}
		}
		x.collide[fold()] = r
		return
	}
	x.m[h] = r
}

// Get returns the member of the name (h, named, fold as for Add), or the
// zero R.
func (x *NameIndex[R]) Get(h uint64, named func(R) bool, fold func() string) R {
	var zero R
	if r, ok := x.m[h]; ok && r != zero && named(r) {
		return r
	}
	if len(x.collide) > 0 {
		return x.collide[fold()]
	}
	return zero
}

// Remove drops the name (h, named, fold as for Add) if r is its member.
func (x *NameIndex[R]) Remove(h uint64, r R, named func(R) bool, fold func() string) {
	if o, ok := x.m[h]; ok && o == r && named(r) {
		delete(x.m, h)
		return
	}
	if len(x.collide) > 0 {
		if k := fold(); x.collide[k] == r {
			delete(x.collide, k)
		}
	}
}

// FNV-1a's parameters, for the codecs' hashes of folded names.
const (
	FoldHashInit  uint64 = 14695981039346656037
	FoldHashPrime uint64 = 1099511628211
)
