package vol

import "testing"

// Check and Repair give one report on both file systems: a volume left
// dirty by a writer that never closed is a problem Repair fixes, after
// which a new check finds it clean.
func TestCheckRepair(t *testing.T) {
	for typ, v := range volumes(t) {
		t.Run(typ, func(t *testing.T) {
			dev := v.Device()
			rep, err := Check(dev, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Clean() || rep.NeedsRepair() || rep.Type != typ || rep.Dirs != 1 || rep.Clusters != v.Clusters() || rep.Remaining() != 0 {
				t.Fatalf("fresh volume: %+v", rep)
			}
			rep.Close()
			write(t, v, "a.txt", []byte("data"))
			if err := v.Commit(); err != nil { // the dirty bit stays: no Close
				t.Fatal(err)
			}
			var visited []string
			rep, err = Check(dev, CheckOptions{Plan: true, Visit: func(p string) { visited = append(visited, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Clean() || !rep.NeedsRepair() || rep.Files != 1 || rep.Remaining() != len(rep.Problems) || len(visited) == 0 {
				t.Fatalf("dirty volume: %+v, visited %q", rep, visited)
			}
			for _, p := range rep.Problems {
				if p.String() == "" || p.Fixed {
					t.Errorf("problem %+v before a repair", p)
				}
			}
			if len(rep.Plan()) == 0 {
				t.Errorf("no plan for %v", rep.Problems)
			}
			plan, err := Repair(rep, RepairOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan) == 0 || rep.Remaining() != 0 || rep.Fixed() != len(rep.Problems) || len(rep.Left) != 0 {
				t.Fatalf("repair: plan %q, report %+v", plan, rep)
			}
			if err := rep.Close(); err != nil {
				t.Fatal(err)
			}
			rep, err = Check(dev, CheckOptions{})
			if err != nil || !rep.Clean() {
				t.Fatalf("after the repair: %+v, %v", rep, err)
			}
		})
	}
}

// Describe gives the facts both file systems have in the same fields,
// and what one has in its own part.
func TestDescribe(t *testing.T) {
	for typ, v := range volumes(t) {
		t.Run(typ, func(t *testing.T) {
			if err := v.SetLabel("DESC"); err != nil {
				t.Fatal(err)
			}
			if err := v.Commit(); err != nil {
				t.Fatal(err)
			}
			d, err := Describe(v)
			if err != nil {
				t.Fatal(err)
			}
			if d.Type != typ || d.Clusters != v.Clusters() || d.FreeClusters != v.FreeClusters() || d.ClusterSize != v.ClusterSize() ||
				d.Serial != v.Serial() || d.Label != "DESC" || d.NumFATs < 1 || len(d.Regions) < 4 || d.Alignment.BU == 0 || d.Warnings == nil {
				t.Fatalf("%+v", d)
			}
			_, isFAT := v.(FATFeatures)
			if (d.FAT != nil) != isFAT || (d.ExFAT != nil) == isFAT {
				t.Fatalf("FAT part %v, exFAT part %v", d.FAT, d.ExFAT)
			}
			if isFAT && (d.FAT.FSInfo == nil || d.RootCluster == 0 || d.FAT.BackupBootSector == 0) {
				t.Fatalf("FAT32: %+v", d.FAT)
			}
			if !isFAT && (d.ExFAT.BitmapCluster == 0 || d.ExFAT.UpcaseBytes == 0 || d.RootCluster == 0) {
				t.Fatalf("exFAT: %+v", d.ExFAT)
			}
			if !BootDirty(v) {
				t.Error("BootDirty: a volume being written is dirty")
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			if BootDirty(v) {
				t.Error("BootDirty after Close: still dirty")
			}
		})
	}
}

// A caller that asked IsExFAT already opens and checks without reading
// the boot sector for it again: --stats counts the same requests as
// when the commands opened pkg/fat and pkg/exfat themselves.
func TestOpenAsReadsOnce(t *testing.T) {
	for typ, v := range volumes(t) {
		t.Run(typ, func(t *testing.T) {
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			dev := v.Device()
			ex, err := IsExFAT(dev)
			if err != nil {
				t.Fatal(err)
			}
			count := func(f func() error) int64 {
				before := dev.Stats().ReadRequests
				if err := f(); err != nil {
					t.Fatal(err)
				}
				return dev.Stats().ReadRequests - before
			}
			open := count(func() error { _, err := Open(dev); return err })
			as := count(func() error { _, err := OpenAs(dev, ex); return err })
			if as != open-1 {
				t.Errorf("OpenAs read %d requests, Open %d: want one fewer", as, open)
			}
			check := count(func() error { _, err := Check(dev, CheckOptions{}); return err })
			told := count(func() error { _, err := Check(dev, CheckOptions{ExFAT: &ex}); return err })
			if told != check-1 {
				t.Errorf("Check told the file system read %d requests, Check %d: want one fewer", told, check)
			}
		})
	}
}
