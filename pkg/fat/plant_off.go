//go:build !ftools_plant_misorder

package fat

// plantMisorder does nothing in every real build. The replay tests build
// fcp with the tag ftools_plant_misorder (plant_on.go) to prove that they
// catch a writer that puts directory entries on disk before the data they
// name.
func (v *Volume) plantMisorder() error { return nil }
