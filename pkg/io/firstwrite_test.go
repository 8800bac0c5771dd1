package io

import (
	"errors"
	"testing"
)

// BeforeFirstWrite's function runs once, before the first request that
// writes (through WriteAt, a Batch, a Stream or Zero), not for reads, not
// for its own writes, and not at all once disarmed.
func TestBeforeFirstWrite(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(d *Device) error
	}{
		{"WriteAt", func(d *Device) error { _, err := d.WriteAt([]byte{1}, 4096); return err }},
		{"Batch", func(d *Device) error {
			b := d.NewBatch()
			if err := b.Write(4096, []byte{1}); err != nil {
				return err
			}
			return b.Flush()
		}},
		{"Stream", func(d *Device) error {
			s := d.NewStream()
			defer s.Close()
			if err := s.Write(4096, []byte{1}); err != nil {
				return err
			}
			return s.Flush()
		}},
		{"Zero", func(d *Device) error { return d.Zero(4096, 8192) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := NewMemDevice(1<<20, 512)
			runs := 0
			d.BeforeFirstWrite(func() error {
				runs++
				if w := d.Stats().WriteRequests + d.Stats().ZeroRequests; w != 0 {
					t.Errorf("ran after %d requests", w)
				}
				// Its own write does not run it again.
				_, err := d.WriteAt([]byte{0xAA}, 0)
				return err
			})
			if _, err := d.ReadAt(make([]byte, 512), 0); err != nil || runs != 0 {
				t.Fatalf("a read ran it (%d, %v)", runs, err)
			}
			for range 2 {
				if err := c.write(d); err != nil {
					t.Fatal(err)
				}
			}
			b := make([]byte, 1)
			if _, err := d.ReadAt(b, 0); err != nil || runs != 1 || b[0] != 0xAA {
				t.Fatalf("ran %d times, wrote %#x (%v); want once, 0xaa", runs, b[0], err)
			}
		})
	}
	t.Run("error and disarm", func(t *testing.T) {
		d := NewMemDevice(1<<20, 512)
		boom := errors.New("boom")
		d.BeforeFirstWrite(func() error { return boom })
		if _, err := d.WriteAt([]byte{1}, 0); !errors.Is(err, boom) || d.Stats().WriteRequests != 0 {
			t.Fatalf("WriteAt after a failing hook: %v, %d requests", err, d.Stats().WriteRequests)
		}
		d.BeforeFirstWrite(func() error { t.Error("a disarmed function ran"); return nil })
		d.BeforeFirstWrite(nil)
		if _, err := d.WriteAt([]byte{1}, 0); err != nil {
			t.Fatal(err)
		}
	})
}
