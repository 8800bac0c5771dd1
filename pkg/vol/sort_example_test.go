package vol_test

import (
	"fmt"
	"log"
	"time"

	fio "github.com/ftools/ftools/pkg/io"
	"github.com/ftools/ftools/pkg/vol"
)

// Sort a card's directories for a player that plays files in the order
// they lie on disk: directories first, then names as fatsort orders them,
// here in natural order (track 2 before track 10).
func ExampleSort() {
	dev := fio.NewMemDevice(64<<20, 512)
	if _, err := vol.Format(dev, vol.FormatOptions{ExFAT: &vol.ExFATParams{}}); err != nil {
		log.Fatal(err)
	}
	v, err := vol.Open(dev)
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"track 10.mp3", "track 2.mp3", "track 1.mp3"} {
		w, err := v.Create(name, 0, time.Now())
		if err != nil {
			log.Fatal(err)
		}
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
	}
	if err := v.Mkdir("Extras", time.Now()); err != nil {
		log.Fatal(err)
	}
	if err := v.Close(); err != nil {
		log.Fatal(err)
	}
	res, err := vol.Sort(dev, vol.SortOptions{Natural: true, Visit: func(path string, members int, changed bool) {
		fmt.Println(path, members, changed)
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d directories, %d rewritten\n", res.Type, res.Dirs, res.Changed)
	// Output:
	// . 4 true
	// Extras 0 false
	// exFAT: 2 directories, 1 rewritten
}
