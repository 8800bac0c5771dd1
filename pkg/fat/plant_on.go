//go:build ftools_plant_misorder

package fat

// plantMisorder makes Commit write directory entries first, before the
// data and the FAT they refer to, with no barrier: a test-only build that
// the replay tests must catch (tests/replay_test.go).
const plantMisorder = true
