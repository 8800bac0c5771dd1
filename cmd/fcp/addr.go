package main

import (
	"fmt"
	"path"
	"strings"

	"github.com/urfave/cli/v2"

	"ftools/cmd/internal/cmdutil"
	"ftools/pkg/fat"
	fio "ftools/pkg/io"
)

// operand is one SOURCE or DEST as given: a host path, or a path inside an
// image (`::/path` with -i IMAGE, or `IMAGE::/path`).
type operand struct {
	raw      string
	image    string // image spec ("" for a host path)
	path     string // host path, or volume path ("." for the root)
	slash    bool   // given with a trailing slash: must be a directory
	contents bool   // ends in "/." (or is the image root): copy what is inside
}

func (o operand) inImage() bool { return o.image != "" }

// parseOperand splits an argument into image and path.
func parseOperand(arg, defImage string) (operand, error) {
	op := operand{raw: arg}
	i := strings.Index(arg, "::")
	if i < 0 {
		op.path = arg
		op.slash = strings.HasSuffix(arg, "/") && arg != "/"
		op.contents = arg == "." || strings.HasSuffix(arg, "/.")
		return op, nil
	}
	op.image = arg[:i]
	if op.image == "" {
		op.image = defImage
	}
	if op.image == "" {
		return op, fmt.Errorf("%s: an image path needs an image: give -i IMAGE or write IMAGE::/path", arg)
	}
	p := strings.ReplaceAll(arg[i+2:], "\\", "/")
	op.slash = strings.HasSuffix(p, "/") && strings.Trim(p, "/") != ""
	op.contents = p == "" || strings.Trim(p, "/") == "" || p == "." || strings.HasSuffix(p, "/.")
	op.path = path.Clean("/" + p)[1:]
	if op.path == "" {
		op.path = "."
	}
	return op, nil
}

// image is one open image: its device and volume, shared by every operand
// that names it.
type image struct {
	spec string
	dev  *fio.Device
	vol  *fat.Volume
}

// openImages opens each image named by the operands once, for writing if
// any destination is in it.
func openImages(c *cli.Context, ops []operand, dst operand) (map[string]*image, error) {
	imgs := map[string]*image{}
	order := append(append([]operand{}, ops...), dst)
	for _, op := range order {
		if !op.inImage() || imgs[op.image] != nil {
			continue
		}
		write := dst.inImage() && dst.image == op.image
		dev, err := cmdutil.OpenImage(c, op.image, write)
		if err != nil {
			closeImages(imgs)
			return nil, err
		}
		vol, err := fat.Open(dev)
		if err != nil {
			dev.Close()
			closeImages(imgs)
			return nil, fmt.Errorf("%s: %w", op.image, err)
		}
		vol.Clock = cmdutil.Now
		imgs[op.image] = &image{spec: op.image, dev: dev, vol: vol}
	}
	return imgs, nil
}

// closeImages commits and closes every image; the first error wins.
func closeImages(imgs map[string]*image) error {
	var first error
	for _, im := range imgs {
		if err := im.vol.Close(); err != nil && first == nil {
			first = fmt.Errorf("%s: %w", im.spec, err)
		}
		if err := im.dev.Close(); err != nil && first == nil {
			first = fmt.Errorf("%s: %w", im.spec, err)
		}
	}
	return first
}
