//go:build !linux

package io

import "errors"

// Off Linux a HostFile reads and writes plainly: the page-cache controls
// it uses are Linux's.

func (h *HostFile) Read(p []byte) (int, error) { return h.f.Read(p) }

func (h *HostFile) Write(p []byte) (int, error) { return h.f.Write(p) }

// Done lets the last pages go (nothing to do here).
func (h *HostFile) Done() {}

// CachedBytes is how much of a host file is in the page cache: Linux only.
func CachedBytes(path string) (int64, error) { return 0, errors.ErrUnsupported }
