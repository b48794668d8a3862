package contractpin

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestVersionCompatible(t *testing.T) {
	for _, c := range []struct {
		lib, hdr [2]uint32
		ok       bool
	}{
		{[2]uint32{0, 1}, [2]uint32{0, 1}, true},  // the patch is not compared
		{[2]uint32{0, 2}, [2]uint32{0, 1}, false}, // 0.x: every minor release may break the ABI
		{[2]uint32{0, 0}, [2]uint32{0, 1}, false},
		{[2]uint32{1, 1}, [2]uint32{0, 1}, false},
		{[2]uint32{1, 0}, [2]uint32{1, 0}, true},
		{[2]uint32{1, 3}, [2]uint32{1, 2}, true},  // 1.x: a newer minor only adds functions
		{[2]uint32{1, 1}, [2]uint32{1, 2}, false}, // an older one may lack some
		{[2]uint32{2, 0}, [2]uint32{1, 2}, false},
		{[2]uint32{0, 1}, [2]uint32{1, 0}, false},
	} {
		if got := versionCompatible(c.lib[0], c.lib[1], c.hdr[0], c.hdr[1]); got != c.ok {
			t.Errorf("library %d.%d, header %d.%d: compatible %v, want %v", c.lib[0], c.lib[1], c.hdr[0], c.hdr[1], got, c.ok)
		}
	}
}

func TestCheckVersion(t *testing.T) {
	if err := CheckVersion(); err != nil {
		t.Fatalf("the library under test: %v", err)
	}
	var major, minor uint32
	if _, err := fmt.Sscanf(HeaderVersion, "%d.%d.", &major, &minor); err != nil {
		t.Fatal(err)
	}
	if err := checkVersion("patched", major, minor); err != nil {
		t.Fatalf("same major.minor: %v", err)
	}
	for _, v := range [][2]uint32{{major, minor + 1}, {major + 1, minor}} {
		err := checkVersion("other", v[0], v[1])
		var ve *VersionError
		if !errors.As(err, &ve) || ve.Library != "other" || ve.Header != HeaderVersion {
			t.Fatalf("%d.%d: got %#v", v[0], v[1], err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "libcontractpin is other") || !strings.Contains(msg, "contractpin.h "+HeaderVersion) {
			t.Fatalf("the message names neither version: %s", msg)
		}
	}
}

// Every call that needs the library returns the *VersionError of a library
// that is not compatible, and calls nothing else in it.
func TestCallsRefuseAnIncompatibleLibrary(t *testing.T) {
	mismatch := &VersionError{Library: "9.9.9", Header: HeaderVersion}
	saved := libraryVersion
	libraryVersion = func() error { return mismatch }
	defer func() { libraryVersion = saved }()

	lock := readTestdata(t, "demo.lock")
	tools := readTestdata(t, "tools-drifted.json")
	calls := map[string]func() error{
		"CheckVersion": CheckVersion,
		"Canonicalize": func() error { _, err := Canonicalize([]byte(`[]`)); return err },
		"CanonicalizeWithLimits": func() error {
			_, err := CanonicalizeWithLimits([]byte(`[]`), nil)
			return err
		},
		"ToolContract":    func() error { _, err := ToolContract([]byte(`{"name":"x"}`)); return err },
		"ToolDigest":      func() error { _, err := ToolDigest([]byte(`{"name":"x"}`)); return err },
		"DigestToolsList": func() error { _, err := DigestToolsList(tools); return err },
		"ParseLock":       func() error { _, err := ParseLock(lock); return err },
		"NewGate":         func() error { _, err := NewGate(); return err },
		"Verify":          func() error { _, err := Verify(lock, "demo", tools); return err },
		"VerifyWithOptions": func() error {
			_, err := VerifyWithOptions(lock, "demo", tools, VerifyOptions{})
			return err
		},
		"VerifyServer": func() error {
			_, err := VerifyServer(lock, "demo", []byte(`{}`), tools, VerifyOptions{})
			return err
		},
	}
	for name, call := range calls {
		if err := call(); err != error(mismatch) {
			t.Errorf("%s: got %v, want the version error", name, err)
		}
	}
}
