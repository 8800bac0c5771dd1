package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExFATDamagedCorpus runs every command over every exFAT image of the
// damaged corpus (as TestDamagedCorpus does over the FAT ones: no panic,
// no hang, no unbounded allocation, nothing written outside the
// destination, read-only commands change nothing), and holds fverify to
// fsck.exfat: what fsck.exfat -n finds wrong fverify finds wrong too, and
// what fverify --repair says it fixed fully, fsck.exfat -n finds clean.
func TestExFATDamagedCorpus(t *testing.T) {
	need(t, "fsck.exfat")
	eachDamaged(t, exfatDamagedDir, func(t *testing.T, rn *boundedRunner, name, root string, want []byte, host string) {
		damagedReads(rn, root, filepath.Join(root, "orig.img"), want)
		damagedWrites(rn, root, want, host)

		img := filepath.Join(root, "verdict.img")
		if err := os.WriteFile(img, want, 0o644); err != nil {
			t.Fatal(err)
		}
		fsck := run(t, "fsck.exfat", "-n", img)
		fv := rn.run("fverify", img)
		if fsck.code != 0 && fv.code == 0 {
			t.Errorf("fsck.exfat -n finds damage (exit %d) that fverify does not:\n%s%s\nfverify:\n%s", fsck.code, fsck.stdout, fsck.stderr, fv.stdout)
		}
		if fv.code == 8 && fsck.code == 0 {
			t.Errorf("fverify cannot check a volume fsck.exfat finds clean:\n%s%s", fv.stdout, fv.stderr)
		}
		rep := rn.run("fverify", "--repair", img)
		if rep.code == 0 || rep.code == 1 {
			if after := run(t, "fsck.exfat", "-n", img); after.code != 0 {
				t.Errorf("fverify --repair left the volume clean (exit %d) but fsck.exfat -n does not:\n%s%s\nfverify --repair:\n%s", rep.code, after.stdout, after.stderr, rep.stdout)
			}
			if again := rn.run("fverify", img); again.code != 0 {
				t.Errorf("fverify --repair said it fixed everything, but fverify finds:\n%s", again.stdout)
			}
		}
	})
}
