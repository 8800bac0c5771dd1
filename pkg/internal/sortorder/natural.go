package sortorder

// natural is fatsort's natural order (its -n), rule for rule, quirks
// included, so that fsort -n and fatsort -n agree: bytes compare as C's
// signed char (so bytes from 0x80 up sort before ASCII); a run of digits
// is read as a 32-bit number that wraps as fatsort's does; where one side
// has a number and the other has not, the side without one keeps its place
// and the comparison goes on from there, unless a side has ended.
func natural(a, b string) int {
	at := func(s string, k int) int8 {
		if k < len(s) {
			return int8(s[k])
		}
		return 0
	}
	digit := func(c int8) bool { return c >= '0' && c <= '9' }
	number := func(s string, k *int) int32 {
		if !digit(at(s, *k)) {
			return -1
		}
		var n int32
		for digit(at(s, *k)) {
			n = n*10 + int32(at(s, *k)-'0')
			*k++
		}
		return n
	}
	i, j := 0, 0
	for {
		if i >= len(a) || j >= len(b) {
			return cmpBytes(a[min(i, len(a)):], b[min(j, len(b)):])
		}
		for {
			c1, c2 := at(a, i), at(b, j)
			if digit(c1) || digit(c2) {
				break
			}
			switch {
			case c1 == 0 && c2 == 0:
				return 0
			case c2 == 0 || c1 > c2:
				return 1
			case c1 == 0 || c1 < c2:
				return -1
			}
			i++
			j++
		}
		n1, n2 := number(a, &i), number(b, &j)
		if n1 == -1 || n2 == -1 {
			c1, c2 := at(a, i), at(b, j)
			switch {
			case c1 == 0 && n1 == -1:
				return -1
			case c1 == 0 && n2 == -1:
				if '0' < c2 {
					return -1
				}
				return 1
			case c2 == 0 && n1 == -1:
				if '0' < c1 {
					return 1
				}
				return -1
			case c2 == 0 && n2 == -1:
				return 1
			}
		} else if n1 != n2 {
			if n1 > n2 {
				return 1
			}
			return -1
		}
	}
}

// cmpBytes is C's strcmp: unsigned bytes.
func cmpBytes(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
