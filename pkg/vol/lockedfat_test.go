package vol

import (
	"reflect"
	"testing"
)

// Every FAT volume Open returns is FATFeatures, through the lock (the
// commands set FSINFO and the allocation policy that way); exFAT's is not.
func TestOpenKeepsFATFeatures(t *testing.T) {
	for kind, v := range volumes(t) {
		f, ok := v.(FATFeatures)
		if ok == (kind == "exFAT") {
			t.Errorf("%s: FATFeatures %v", kind, ok)
		}
		if !ok {
			continue
		}
		if err := f.SetNextCluster(5); err != nil {
			t.Fatalf("%s: SetNextCluster: %v", kind, err)
		}
		if fi := f.FSInfo(); kind == "FAT32" && (fi == nil || fi.NextFree != 5) {
			t.Errorf("%s: FSINFO after SetNextCluster(5): %+v", kind, fi)
		}
		if d, err := Describe(v); err != nil || d.FAT == nil {
			t.Errorf("%s: Describe through the lock: %v, %v", kind, d, err)
		}
	}
	// Each feature beyond Volume's methods is one of lockedFAT's own.
	own := reflect.TypeFor[*lockedFAT]()
	base := reflect.TypeFor[Volume]()
	ft := reflect.TypeFor[FATFeatures]()
	for i := range ft.NumMethod() {
		m := ft.Method(i).Name
		if _, inVolume := base.MethodByName(m); inVolume {
			continue
		}
		if _, ok := reflect.TypeFor[*locked]().MethodByName(m); ok {
			t.Errorf("FATFeatures.%s comes from *locked, not lockedFAT", m)
		}
		if _, ok := own.MethodByName(m); !ok {
			t.Errorf("FATFeatures.%s is missing on lockedFAT", m)
		}
	}
}
