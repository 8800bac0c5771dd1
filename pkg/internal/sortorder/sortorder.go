// Package sortorder holds the rules fsort orders directory members by,
// written once for FAT and exFAT: fatsort's, as fatsort 1.6 applies them
// under LC_ALL=C.UTF-8.
//
// A member's key is its name as bytes (the long name in UTF-8; on FAT a
// member without one is named by its short name as fatsort spells it, see
// ShortKey) and whether it is a directory. Directories come first by
// default (OrderDirsFirst), then names compare byte by byte (which in
// C.UTF-8 is code point order, upper case before lower case), or by
// fatsort's natural order (Natural), optionally with ASCII letters folded
// to lower case (IgnoreCase); Reverse turns the name order round but not
// the directories-first rule. Members whose keys compare equal keep their
// order on disk (the sort is stable, as fatsort's insertion is).
package sortorder

import (
	"fmt"
	"slices"
	"strings"
)

// Order says where directories go.
type Order int

const (
	OrderDirsFirst  Order = iota // directories before files (fatsort -o d, the default)
	OrderFilesFirst              // files before directories (-o f)
	OrderMixed                   // no difference (-o a)
)

// ParseOrder reads fatsort's -o letter: d, f or a.
func ParseOrder(s string) (Order, error) {
	switch s {
	case "d", "":
		return OrderDirsFirst, nil
	case "f":
		return OrderFilesFirst, nil
	case "a":
		return OrderMixed, nil
	}
	return 0, fmt.Errorf("sort order %q: want d (directories first), f (files first) or a (no difference)", s)
}

// Options choose the order. The zero value is fatsort's default under
// C.UTF-8: directories first, then names byte by byte, case respected.
type Options struct {
	Order      Order
	Natural    bool // fatsort -n: runs of digits compare as numbers
	Reverse    bool // fatsort -r: names in reverse order (directories still first)
	IgnoreCase bool // fatsort -c: ASCII letters compare as lower case
}

// Key is what a member is ordered by.
type Key struct {
	Name string
	Dir  bool
}

// Compare orders a before b (<0), after it (>0), or as equal (0).
func (o Options) Compare(a, b Key) int {
	if a.Dir != b.Dir {
		switch o.Order {
		case OrderDirsFirst:
			if a.Dir {
				return -1
			}
			return 1
		case OrderFilesFirst:
			if a.Dir {
				return 1
			}
			return -1
		}
	}
	x, y := a.Name, b.Name
	if o.IgnoreCase {
		x, y = lowerASCII(x), lowerASCII(y)
	}
	var c int
	if o.Natural {
		c = natural(x, y)
	} else {
		c = strings.Compare(x, y)
	}
	if o.Reverse {
		c = -c
	}
	return c
}

// Sort orders items by their keys, stably. Byte order is a total order,
// so a stable sort gives what fatsort's insertion gives. Its natural order
// is not transitive ("A.B" < "A1B2" < "A02" < "AB", yet "A02" < "A.B"
// fails nowhere to hold), so there the result depends on the algorithm:
// Sort then inserts as fatsort does, each member in disk order before the
// first member already placed that it compares below. That costs
// O(n^2) comparisons: about two billion for a folder at FAT's limit of
// 65,536 names, seconds, as fatsort takes.
func Sort[T any](o Options, items []T, key func(*T) Key) {
	if !o.Natural {
		slices.SortStableFunc(items, func(a, b T) int { return o.Compare(key(&a), key(&b)) })
		return
	}
	keys := make([]Key, len(items))
	for i := range items {
		keys[i] = key(&items[i])
	}
	order := make([]int32, 0, len(items))
	for i := range items {
		p := 0
		for p < len(order) && o.Compare(keys[i], keys[order[p]]) >= 0 {
			p++
		}
		order = slices.Insert(order, p, int32(i))
	}
	sorted := make([]T, len(items))
	for i, k := range order {
		sorted[i] = items[k]
	}
	copy(items, sorted)
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// ShortKey is the name fatsort orders a FAT member without a long name
// by: the 8 name bytes up to the first space, then, if the extension does
// not begin with a space, a dot and the 3 extension bytes as stored
// (trailing spaces kept). The bytes are the OEM code page's, unconverted.
func ShortKey(short [11]byte) string {
	b := make([]byte, 0, 12)
	for _, c := range short[:8] {
		if c == ' ' {
			break
		}
		b = append(b, c)
	}
	if short[8] != ' ' {
		b = append(b, '.')
		b = append(b, short[8:11]...)
	}
	return string(b)
}
