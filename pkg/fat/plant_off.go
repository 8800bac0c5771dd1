//go:build !ftools_plant_misorder

package fat

// plantMisorder is false in every real build. The replay tests build fcp
// with the tag ftools_plant_misorder (plant_on.go) to prove that they catch
// a writer that puts directory entries on disk before the data they name.
const plantMisorder = false
