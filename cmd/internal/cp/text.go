package cp

import "bytes"

// Text mode (-t), as mcopy -t: line ends become CR LF on the way into a
// volume and LF on the way out. Unlike mcopy, no ^Z end marker is added or
// honoured, so that copying a text file in and out again gives it back
// byte for byte.

// toDOS appends src to dst with every LF preceded by a CR.
func toDOS(dst, src []byte) []byte {
	for {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		dst = append(dst, '\r', '\n')
		src = src[i+1:]
	}
}

// fromDOS turns CR LF into LF across the chunks of one file; a CR not
// followed by LF stays.
type fromDOS struct {
	cr bool // the last chunk ended in a CR, held back
}

// convert appends src to dst with CR LF turned into LF.
func (f *fromDOS) convert(dst, src []byte) []byte {
	if f.cr && len(src) > 0 {
		f.cr = false
		if src[0] != '\n' {
			dst = append(dst, '\r')
		}
	}
	for {
		i := bytes.IndexByte(src, '\r')
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		switch {
		case i+1 == len(src):
			f.cr = true
			return dst
		case src[i+1] != '\n':
			dst = append(dst, '\r')
		}
		src = src[i+1:]
	}
}

// end gives back a CR held at the end of the file.
func (f *fromDOS) end(dst []byte) []byte {
	if f.cr {
		f.cr = false
		return append(dst, '\r')
	}
	return dst
}
