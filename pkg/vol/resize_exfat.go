package vol

import "github.com/ftools/ftools/pkg/exfat"

// exfatResize is exFAT's Resize (pkg/exfat), called as FAT's is.
var exfatResize = exfat.Resize
