package godiskfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fsckFat finds fsck.fat, the oracle; the test fails without it.
func fsckFat(t *testing.T) string {
	for _, p := range []string{"fsck.fat", "/usr/sbin/fsck.fat", "/sbin/fsck.fat"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Fatal("fsck.fat not found: install dosfstools (bash scripts/deps)")
	return ""
}

// TestImagesCheckAndReadBack writes the benchmarks' jobs (smaller, unless
// -full) with each tool, then runs fsck.fat -n on the image and reads the files back.
// ftools' images must pass and read back byte for byte; go-diskfs's
// results are logged, since the benchmark compares with it as it is.
func TestImagesCheckAndReadBack(t *testing.T) {
	fsck := fsckFat(t)
	jobs := map[string]job{
		"big":   {image: 512 << 20, files: []file{{name: "BIG.BIN", size: 8<<20 + 123}}},
		"small": smallJob(150),
	}
	if *full { // the benchmarks' own jobs
		jobs = map[string]job{"big": bigJob(), "small": smallJob(smallCount())}
	}
	d := imageDir(t)
	for jname, j := range jobs {
		for _, tl := range tools {
			t.Run(jname+"/"+tl.name, func(t *testing.T) {
				img := filepath.Join(d, jname+"-"+tl.name+".img")
				defer os.Remove(img)
				if err := tl.format(img, j.image); err != nil {
					t.Fatal(err)
				}
				if err := tl.write(img, j.files); err != nil {
					t.Fatal(err)
				}
				out, fsckErr := exec.Command(fsck, "-n", img).CombinedOutput()
				bad, readErr := tl.read(img, j.files)
				if tl.name == "go-diskfs" {
					t.Logf("fsck.fat -n: %v\n%s", fsckErr, out)
					t.Logf("read back: %d of %d files differ (error: %v)", bad, len(j.files), readErr)
					return
				}
				if fsckErr != nil {
					t.Errorf("fsck.fat -n rejects the image: %v\n%s", fsckErr, out)
				}
				if readErr != nil || bad != 0 {
					t.Errorf("read back: %d of %d files differ (error: %v)", bad, len(j.files), readErr)
				}
			})
		}
	}
}
