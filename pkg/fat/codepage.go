package fat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/text/encoding/charmap"
)

// DefaultCodePage is the OEM code page short names and labels are read and
// written in unless SetCodePage says otherwise: 850, the default of mtools
// (its codepage and default_codepage settings) and of dosfstools (mkfs.fat,
// fsck.fat and fatlabel --codepage). Code page 437, which Linux mounts with
// by default, differs from it in a third of the upper half (0x9D is Ø in 850
// and ¥ in 437).
const DefaultCodePage = 850

// codePages are the OEM code pages golang.org/x/text provides.
var codePages = map[int]*charmap.Charmap{
	437: charmap.CodePage437, 850: charmap.CodePage850, 852: charmap.CodePage852,
	855: charmap.CodePage855, 858: charmap.CodePage858, 860: charmap.CodePage860,
	862: charmap.CodePage862, 863: charmap.CodePage863, 865: charmap.CodePage865,
	866: charmap.CodePage866,
}

// CodePages lists the code pages SetCodePage accepts, in order.
func CodePages() []int {
	out := make([]int, 0, len(codePages))
	for n := range codePages {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// codePage is the code page in use and its number.
type codePage struct {
	n  int
	cm *charmap.Charmap
}

var oemPage atomic.Pointer[codePage]

func init() { oemPage.Store(&codePage{DefaultCodePage, codePages[DefaultCodePage]}) }

// oem is the code page in use.
func oem() *charmap.Charmap { return oemPage.Load().cm }

// CodePage returns the number of the OEM code page in use.
func CodePage() int { return oemPage.Load().n }

// SetCodePage sets the OEM code page in which short names and volume labels
// are decoded and encoded, for every volume of the process (as mtools'
// default_codepage does for all drives). Call it before opening volumes:
// directories already loaded keep the names they were decoded with.
func SetCodePage(n int) error {
	cm, ok := codePages[n]
	if !ok {
		var list []string
		for _, c := range CodePages() {
			list = append(list, strconv.Itoa(c))
		}
		return fmt.Errorf("fat: code page %d is not supported (use one of %s)", n, strings.Join(list, ", "))
	}
	oemPage.Store(&codePage{n, cm})
	return nil
}

// decodeOEMLabel decodes a label's 11 bytes without their trailing spaces
// (and NULs) from the code page in use.
func decodeOEMLabel(b []byte) string {
	end := len(b)
	for end > 0 && (b[end-1] == ' ' || b[end-1] == 0) {
		end--
	}
	var sb strings.Builder
	for _, c := range b[:end] {
		sb.WriteRune(oem().DecodeByte(c))
	}
	return sb.String()
}
