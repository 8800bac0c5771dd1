//go:build ftools_plant_misorder

package fat

// plantMisorder, in this test-only build, writes the changed directory
// sectors at the start of Commit, before the data and the FAT they refer
// to and with no barrier; Commit writes them again in their place, so the
// finished run is correct and only a crash in between shows the fault.
// The replay tests must catch it (tests/replay_test.go).
func (v *Volume) plantMisorder() error {
	b := v.dev.NewBatch()
	for _, d := range v.dirtyDirs {
		ss := v.layout.SectorSize
		for s := range d.dirty {
			off := int64(s) * ss
			if err := b.Write(d.offsetOf(off), d.raw[off:off+ss]); err != nil {
				return err
			}
		}
	}
	return b.Flush()
}
