package fsutil

// SetFlag sets the bits of flag in *x when on and clears them when not:
// how both codecs' boot sectors raise and lower their dirty flag (FAT's
// dirty bit in the state byte, exFAT's VolumeDirty in VolumeFlags).
func SetFlag[T ~uint8 | ~uint16 | ~uint32](x *T, flag T, on bool) {
	if on {
		*x |= flag
	} else {
		*x &^= flag
	}
}
