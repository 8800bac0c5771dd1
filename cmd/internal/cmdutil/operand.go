package cmdutil

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/urfave/cli/v2"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// FlagImage is -i IMAGE, the image that "::/path" operands refer to.
const FlagImage = "image"

// ImageFlag is -i/--image.
func ImageFlag() cli.Flag {
	return &cli.StringFlag{Name: FlagImage, Aliases: []string{"i"}, Usage: "the `IMAGE` that ::/PATH operands refer to",
		Action: func(_ *cli.Context, image string) error {
			// "frm -i card.img::/a card.img::/b", rm's -i typed out of
			// habit, took the first path for the image and removed the
			// second alone, saying nothing of the first.
			if strings.Contains(image, "::") {
				return fmt.Errorf("-i %s: -i names the image that ::/PATH operands refer to (as mtools' -i), not a path inside one; rm's and mv's -i (ask first) is not a flag here: write IMAGE::/PATH alone, or -i IMAGE ::/PATH", image)
			}
			return nil
		}}
}

// Operand is one path argument as mtools writes them: a host path, or a
// path inside an image (`::/path` with -i IMAGE, or `IMAGE::/path`).
type Operand struct {
	Raw      string
	Image    string // image spec, "" for a host path
	Path     string // host path, or volume path ("." for the root)
	Slash    bool   // given with a trailing slash: must be a directory
	Contents bool   // ends in "/." (or is the image root): what is inside
}

// VolPath is the path to hand pkg/fat: Path with the trailing slash the
// operand was given with, so that "::/file/" is refused as not a directory
// (as rm, cat and ls refuse "file/") instead of naming the file. Path itself
// stays clean for joining names to it.
func (o Operand) VolPath() string {
	if o.Slash && o.Path != "." {
		return o.Path + "/"
	}
	return o.Path
}

// InImage reports whether the operand names a path inside an image.
func (o Operand) InImage() bool { return o.Image != "" }

// Explicit reports whether the image was named in the operand itself.
func (o Operand) Explicit() bool { return !strings.HasPrefix(o.Raw, "::") }

// Show is the operand's volume path as messages print it.
func (o Operand) Show(p string) string {
	if !o.InImage() {
		return p
	}
	s := "::/" + strings.TrimPrefix(path.Clean("/"+p), "/")
	if p == "." {
		s = "::/"
	} else if strings.HasSuffix(p, "/") && s != "::/" {
		s += "/" // a VolPath keeps the slash the user wrote
	}
	if o.Explicit() {
		return o.Image + s
	}
	return s
}

// ParseOperand splits an argument into image and path; defImage is -i's.
func ParseOperand(arg, defImage string) (Operand, error) {
	op := Operand{Raw: arg}
	i := strings.Index(arg, "::")
	if i < 0 {
		op.Path = arg
		op.Slash = strings.HasSuffix(arg, "/") && arg != "/"
		op.Contents = arg == "." || strings.HasSuffix(arg, "/.")
		return op, nil
	}
	op.Image = arg[:i]
	if op.Image == "" {
		op.Image = defImage
	}
	if op.Image == "" {
		return op, fmt.Errorf("%s: an image path needs an image: give -i IMAGE or write IMAGE::/path", arg)
	}
	p := strings.ReplaceAll(arg[i+2:], "\\", "/")
	op.Slash = strings.HasSuffix(p, "/") && strings.Trim(p, "/") != ""
	op.Contents = strings.Trim(p, "/") == "" || p == "." || strings.HasSuffix(p, "/.")
	op.Path = path.Clean("/" + p)[1:]
	if op.Path == "" {
		op.Path = "."
	}
	return op, nil
}

// ImageOperand parses an argument that must name a path inside an image.
func ImageOperand(c *cli.Context, arg string) (Operand, error) {
	op, err := ParseOperand(arg, c.String(FlagImage))
	if err != nil {
		return op, err
	}
	if !op.InImage() {
		if c.String(FlagImage) == "" {
			return op, fmt.Errorf("%s: not a path inside an image: write ::/path with -i IMAGE, or IMAGE::/path", arg)
		}
		// With -i, a bare path means a path in that image, as mtools
		// users often type it.
		return ParseOperand("::"+arg, c.String(FlagImage))
	}
	return op, nil
}

// Image is one open image: its device and volume, FAT or exFAT as its
// boot sector says (what only FAT has, FSINFO and allocation policies,
// is vol.FATFeatures).
type Image struct {
	Spec string
	Dev  *fio.Device
	Vol  vol.Volume
	id   imageID // as the spec names it
	at   imageID // where the volume was found: the partition chosen too
}

// imageID says which volume a spec names, however it is spelled: "a.img",
// "./a.img", a link to it and "a.img@@0" name one volume.
type imageID struct {
	file   fio.FileID
	offset int64 // -1: the file could not be identified
}

// identify returns the imageID of a spec; the offset is -1 when the file
// cannot be found (opening it will say why).
func identify(spec string) (imageID, error) {
	path, off, err := fio.ParseImageSpec(spec)
	if err != nil {
		return imageID{offset: -1}, err
	}
	file, err := fio.Identify(path)
	if err != nil {
		return imageID{offset: -1}, nil
	}
	return imageID{file, off}, nil
}

// SameImage reports whether two image specs name one volume ("a.img" and
// "./a.img@@0" do).
func SameImage(a, b string) bool {
	if a == b {
		return true
	}
	ia, erra := identify(a)
	ib, errb := identify(b)
	return erra == nil && errb == nil && ia.offset >= 0 && ia == ib
}

// Images holds the images one command opened, each once: a volume named
// two ways maps both specs to one Image, so that the command neither
// waits for its own lock nor keeps two FATs of one volume in memory.
type Images map[string]*Image

// Open opens (once) the image an operand names, writable if write.
// Volumes stamp times with Now (SOURCE_DATE_EPOCH aware). An image first
// opened read-only cannot be had writable later: commands open the one
// they write first.
func (ims Images) Open(c *cli.Context, spec string, write bool) (*Image, error) {
	im := ims[spec]
	id := imageID{offset: -1}
	if im == nil {
		var err error
		if id, err = identify(spec); err != nil {
			return nil, err
		}
		for _, other := range ims {
			if (other.id == id || other.at == id) && id.offset >= 0 {
				im = other
				break
			}
		}
	}
	if im != nil {
		return ims.reuse(spec, im, write)
	}
	dev, err := OpenImage(c, spec, write)
	if errors.Is(err, fio.ErrOverlap) && id.offset >= 0 {
		// This command writes those bytes already: under another name of
		// this volume ("a.img" and "a.img@@1M"), found by where it starts.
		if probe, perr := OpenImage(c, spec, false); perr == nil {
			at := imageID{id.file, probe.Start()}
			probe.Close()
			for _, other := range ims {
				if other.at == at {
					return ims.reuse(spec, other, write)
				}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	// "a.img" opens at the partition it chooses, which "a.img@@1M" or
	// "a.img --partition 1" may name too: one volume, one Image, or two
	// caches of one FAT would each write back their own (a removal or a
	// new directory made through one lost to the other's commit).
	at := imageID{id.file, dev.Start()}
	for _, other := range ims {
		if id.offset >= 0 && other.at == at {
			dev.Close()
			return ims.reuse(spec, other, write)
		}
	}
	v, err := vol.Open(dev)
	if err != nil {
		dev.Close()
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	v.SetClock(Now)
	im = &Image{Spec: spec, Dev: dev, Vol: v, id: id, at: at}
	if id.offset < 0 {
		im.at.offset = -1
	}
	ims[spec] = im
	return im, nil
}

// reuse maps spec to im, an image already open under another name.
func (ims Images) reuse(spec string, im *Image, write bool) (*Image, error) {
	if write && !im.Dev.Writable() {
		return nil, fmt.Errorf("%s: already open read-only as %s", spec, im.Spec)
	}
	ims[spec] = im
	return im, nil
}

// each calls fn once per image, however many specs name it.
func (ims Images) each(fn func(*Image)) {
	seen := map[*Image]bool{}
	for _, im := range ims {
		if !seen[im] {
			seen[im] = true
			fn(im)
		}
	}
}

// Close commits and closes every image; the first error wins.
func (ims Images) Close() error {
	var errs []error
	ims.each(func(im *Image) {
		if err := im.Vol.Close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", im.Spec, err))
		}
		if err := im.Dev.Close(); err != nil && !errors.Is(err, fio.ErrClosed) {
			errs = append(errs, fmt.Errorf("%s: %w", im.Spec, err))
		}
	})
	return errors.Join(errs...)
}

// Stats adds up the statistics of every image.
func (ims Images) Stats() fio.Stats {
	var t fio.Stats
	ims.each(func(im *Image) { t = t.Add(im.Dev.Stats()) })
	return t
}

// Unaddressable says why a name read from a volume cannot be named in a
// path ("" if it can): it would be read as a separator or a parent.
func Unaddressable(name string) string {
	switch {
	case name == "" || name == "." || name == "..":
		return "is not a usable file name"
	case strings.ContainsAny(name, "/\\"):
		return "contains a slash"
	case strings.ContainsRune(name, 0):
		return "contains a NUL byte"
	}
	return ""
}
