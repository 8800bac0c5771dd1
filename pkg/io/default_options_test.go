package io

import "testing"

// The zero Options are the documented default: a writable device opened
// with nothing said about syncing flushes once, when it is closed
// (SyncClose), as --sync's default does; the zero SyncPolicy is
// SyncClose and prints as "close".
func TestZeroOptionsSyncOnClose(t *testing.T) {
	var zero SyncPolicy
	if zero != DefaultSync || zero.String() != "close" {
		t.Fatalf("zero SyncPolicy is %v, want the default %v", zero, DefaultSync)
	}
	path, _ := newImage(t, t.TempDir(), 64<<10)
	d, err := Open(path, Options{Write: true})
	must(t, err)
	if d.Policy() != SyncClose {
		t.Errorf("Options{Write: true} policy %v, want close", d.Policy())
	}
	_, err = d.WriteAt([]byte("data"), 10)
	must(t, err)
	must(t, d.Close())
	if got := d.Stats().Flushes; got != 1 {
		t.Errorf("Options{Write: true}: %d flushes after Close, want 1", got)
	}
	// Every policy still parses and prints as itself, and nothing else
	// passes Open's check.
	for _, p := range []SyncPolicy{SyncNone, SyncClose, SyncFile, SyncAlways} {
		if got, err := ParseSyncPolicy(p.String()); err != nil || got != p {
			t.Errorf("%v: parsed back as %v, %v", p, got, err)
		}
	}
	if _, err := Open(path, Options{Sync: SyncAlways + 1}); err == nil {
		t.Error("Open accepted a policy past SyncAlways")
	}
	if _, err := Open(path, Options{Sync: -1}); err == nil {
		t.Error("Open accepted a negative policy")
	}
}
