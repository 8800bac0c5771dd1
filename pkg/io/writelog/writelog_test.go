package writelog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Records read back as they were logged, whatever the devices and kinds.
func TestLogRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	l, err := Create(path)
	must(t, err)
	a, err := l.Open("/img/a", 1<<20, false)
	must(t, err)
	b, err := l.Open("/img/b", 4096, true)
	must(t, err)
	must(t, l.Write(a, 512, []byte("hello")))
	must(t, l.Zero(b, 0, 4096))
	must(t, l.Flush(a))
	must(t, l.Close(b))
	recs, err := ReadFile(path)
	must(t, err)
	want := []Record{
		{Kind: KindOpen, Dev: a, N: 1 << 20, Path: "/img/a"},
		{Kind: KindOpen, Dev: b, N: 4096, Path: "/img/b", DSync: true},
		{Kind: KindWrite, Dev: a, Off: 512, N: 5, Data: []byte("hello")},
		{Kind: KindZero, Dev: b, Off: 0, N: 4096},
		{Kind: KindFlush, Dev: a},
		{Kind: KindClose, Dev: b},
	}
	if fmt.Sprint(recs) != fmt.Sprint(want) {
		t.Fatalf("read back\n%v\nwant\n%v", recs, want)
	}
	// A cut-short log says where.
	raw, err := os.ReadFile(path)
	must(t, err)
	if _, err := Read(bytes.NewReader(raw[:len(raw)-20])); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("truncated log: %v", err)
	}
	if _, err := Read(bytes.NewReader([]byte("X12345678"))); err == nil || !strings.Contains(err.Error(), "unknown kind") {
		t.Fatalf("garbage log: %v", err)
	}
}

// model is the image after a log: each byte may hold what it held before
// or any value a write of an unflushed epoch put there, and must hold the
// last value written in a flushed epoch.
type model struct {
	base  []byte
	final [][]byte // per epoch: the image with every epoch up to it applied
	ops   [][]Op   // per epoch
}

func newModel(base []byte, ops []Op) *model {
	m := &model{base: base}
	img := bytes.Clone(base)
	var cur []Op
	end := func() {
		if len(cur) == 0 {
			return
		}
		for _, o := range cur {
			apply(img, o)
		}
		m.final = append(m.final, bytes.Clone(img))
		m.ops = append(m.ops, cur)
		cur = nil
	}
	for _, o := range ops {
		if o.Kind == KindFlush {
			end()
			continue
		}
		cur = append(cur, o)
	}
	end()
	return m
}

func apply(img []byte, o Op) {
	if o.Data != nil {
		copy(img[o.Off:], o.Data)
	} else {
		clear(img[o.Off : o.Off+o.N])
	}
}

// check says whether img is a state a cut in epoch e can leave.
func (m *model) check(img []byte, e int) error {
	prev := m.base
	if e > 0 {
		prev = m.final[e-1]
	}
	for i := range img {
		if img[i] == prev[i] {
			continue
		}
		ok := false
		for _, o := range m.ops[e] {
			if int64(i) >= o.Off && int64(i) < o.Off+o.N {
				v := byte(0)
				if o.Data != nil {
					v = o.Data[int64(i)-o.Off]
				}
				ok = ok || img[i] == v
			}
		}
		if !ok {
			return fmt.Errorf("byte %d is %#x, which no write of epoch %d put there", i, img[i], e)
		}
	}
	return nil
}

// Replay builds only states a cut can leave, among them torn writes and
// each write alone, restores the image after each, and ends with the log
// applied.
func TestReplayStates(t *testing.T) {
	fill := func(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }
	ops := []Op{
		{Kind: KindWrite, Off: 0, N: 2048, Data: fill(1, 2048)},
		{Kind: KindWrite, Off: 4096, N: 512, Data: fill(2, 512)},
		{Kind: KindZero, Off: 8192, N: 1024},
		{Kind: KindFlush},
		{Kind: KindWrite, Off: 1024, N: 1024, Data: fill(3, 1024)},
		{Kind: KindWrite, Off: 1536, N: 512, Data: fill(4, 512)},
		{Kind: KindFlush},
		{Kind: KindFlush},
	}
	base := fill(0xEE, 16384)
	path := filepath.Join(t.TempDir(), "img")
	must(t, os.WriteFile(path, base, 0o644))
	m := newModel(base, ops)
	torn, alone, shuffledWin := false, 0, false
	n, err := Replay(path, ops, Options{Unit: 512, Samples: 40, Seed: 1}, func(s State) error {
		img, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if s.Index == 1 {
			if !bytes.Equal(img, base) {
				return fmt.Errorf("the first state is not the image before the run")
			}
			return nil
		}
		if err := m.check(img, s.Epoch); err != nil {
			return err
		}
		// Half of the first write: torn at a 512-byte unit.
		if s.Epoch == 0 && bytes.Equal(img[0:512], fill(1, 512)) && bytes.Equal(img[512:1024], fill(0xEE, 512)) {
			torn = true
		}
		if strings.HasPrefix(s.Desc, "only write") {
			alone++
		}
		// Overlapping writes landing in the other order.
		if s.Epoch == 1 && img[1600] == 3 {
			shuffledWin = true
		}
		return nil
	})
	must(t, err)
	if !torn || !shuffledWin {
		t.Errorf("%d states: torn write seen %v, older of two overlapping writes landing last seen %v", n, torn, shuffledWin)
	}
	if alone != 3+2 {
		t.Errorf("%d states with one write alone, want 5", alone)
	}
	img, err := os.ReadFile(path)
	must(t, err)
	if !bytes.Equal(img, m.final[len(m.final)-1]) {
		t.Error("the image does not end with the whole log applied")
	}
	// PrefixOnly: the image before, then each prefix, in order.
	must(t, os.WriteFile(path, base, 0o644))
	var descs []string
	_, err = Replay(path, ops, Options{PrefixOnly: true}, func(s State) error {
		descs = append(descs, s.Desc)
		return nil
	})
	must(t, err)
	want := "before the first write|the first 1 of 3 writes, in order|the first 2 of 3 writes, in order|the first 3 of 3 writes, in order|the first 1 of 2 writes, in order|the first 2 of 2 writes, in order"
	if got := strings.Join(descs, "|"); got != want {
		t.Errorf("prefix states:\n%s\nwant\n%s", got, want)
	}
	// A failing check stops the replay and names the state.
	must(t, os.WriteFile(path, base, 0o644))
	_, err = Replay(path, ops, Options{PrefixOnly: true}, func(s State) error {
		if s.Index == 3 {
			return fmt.Errorf("planted")
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "state 3 (epoch 0: the first 2 of 3 writes, in order): planted") {
		t.Fatalf("error %v", err)
	}
}

// A discard is a record of its own; Replay lands it as zeros (or loses
// it) by default, and leaves it out with DiscardKeepsOld: the two worlds a
// device may give.
func TestReplayDiscard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	l, err := Create(path)
	must(t, err)
	a, err := l.Open("/img/a", 8192, false)
	must(t, err)
	must(t, l.Discard(a, 4096, 4096))
	must(t, l.Flush(a))
	recs, err := ReadFile(path)
	must(t, err)
	ops, err := Ops(recs, "/img/a")
	must(t, err)
	if len(ops) != 2 || ops[0].Kind != KindDiscard || ops[0].Off != 4096 || ops[0].N != 4096 || Discards(ops) != 1 {
		t.Fatalf("ops %+v", ops)
	}
	for _, keep := range []bool{false, true} {
		img := filepath.Join(t.TempDir(), "img")
		must(t, os.WriteFile(img, bytes.Repeat([]byte{7}, 8192), 0o644))
		var last []byte
		if _, err := Replay(img, ops, Options{DiscardKeepsOld: keep}, func(State) error {
			last, err = os.ReadFile(img)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		want := byte(0)
		if keep {
			want = 7
		}
		if last[4096] != want || last[0] != 7 {
			t.Errorf("DiscardKeepsOld %v: byte 4096 is %d, want %d", keep, last[4096], want)
		}
	}
}
