package fsutil

// InPlace is the state both codecs' in-place updaters (OpenFile) hold:
// the shared FileUpdate that drives them, the directory that holds the
// file (D, the codec's) and its record there (R), and the file's clusters
// as the codec's runs (E). A codec's updater embeds it and adds what only
// it keeps.
type InPlace[D, R, E any] struct {
	File   FileUpdate
	Parent D
	Rec    R
	Chain  Chain[E] // the file's clusters now, and how many the entry on disk names
}
