package contractpin

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// Every call that takes Limits refuses a negative MaxInput or MaxTools with
// an error instead of converting it to C's size_t, where it would wrap (a
// negative MaxTools would become SIZE_MAX: no limit at all). The largest
// values that fit are accepted.
func TestLimitsOutOfRange(t *testing.T) {
	lockBytes := readTestdata(t, filepath.Join("verify-server", "server.lock"))
	l := parseLock(t, lockBytes)
	init := readTestdata(t, "initialize.json")
	tools := readTestdata(t, "tools.json")
	page := readTestdata(t, "tools-page.json")
	calls := []struct {
		name string
		call func(*Limits) error
	}{
		{"CanonicalizeWithLimits", func(lim *Limits) error {
			_, err := CanonicalizeWithLimits(tools, lim)
			return err
		}},
		{"DigestToolsListWithLimits", func(lim *Limits) error {
			_, err := DigestToolsListWithLimits(tools, lim)
			return err
		}},
		{"VerifyWithOptions", func(lim *Limits) error {
			_, err := VerifyWithOptions(lockBytes, "acme", tools, VerifyOptions{Limits: lim})
			return err
		}},
		{"VerifyServer", func(lim *Limits) error {
			_, err := VerifyServer(lockBytes, "acme", init, tools, VerifyOptions{Limits: lim})
			return err
		}},
		{"Lock.Verify", func(lim *Limits) error {
			_, err := l.Verify("acme", tools, VerifyOptions{Limits: lim})
			return err
		}},
		{"Lock.VerifyServer", func(lim *Limits) error {
			_, err := l.VerifyServer("acme", init, tools, VerifyOptions{Limits: lim})
			return err
		}},
		{"Lock.GuardPageWithLimits", func(lim *Limits) error {
			_, err := l.GuardPageWithLimits("acme", page, false, lim)
			return err
		}},
		{"Lock.GuardInstructionsWithLimits", func(lim *Limits) error {
			_, err := l.GuardInstructionsWithLimits("acme", init, false, lim)
			return err
		}},
	}
	bad := []struct {
		limits Limits
		field  string
	}{
		{Limits{MaxDepth: 256, MaxInput: -1, MaxTools: 100000}, "MaxInput"},
		{Limits{MaxDepth: 256, MaxInput: math.MinInt, MaxTools: 100000}, "MaxInput"},
		{Limits{MaxDepth: 256, MaxInput: 1 << 20, MaxTools: -1}, "MaxTools"},
		{Limits{MaxDepth: 256, MaxInput: 1 << 20, MaxTools: math.MinInt}, "MaxTools"},
	}
	for _, c := range calls {
		defaults := DefaultLimits()
		if err := c.call(&defaults); err != nil {
			t.Errorf("%s with the default limits: %v", c.name, err)
		}
		largest := Limits{MaxDepth: math.MaxUint32, MaxInput: math.MaxInt, MaxTools: math.MaxInt}
		if err := c.call(&largest); err != nil {
			t.Errorf("%s with %+v: %v", c.name, largest, err)
		}
		for _, b := range bad {
			lim := b.limits
			err := c.call(&lim)
			var e *Error
			if !errors.Is(err, ErrInvalidArgument) || !errors.As(err, &e) || e.Offset != -1 {
				t.Errorf("%s with %+v: %v, want an ErrInvalidArgument error", c.name, lim, err)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, b.field) {
				t.Errorf("%s with %+v: %q does not name %s", c.name, lim, msg, b.field)
			}
		}
	}
}
