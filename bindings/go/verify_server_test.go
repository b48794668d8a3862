package contractpin

import (
	"errors"
	"path/filepath"
	"testing"
)

// serverCase is one case of bindings/c/testdata/verify-server/gen.sh: the
// report file is what `contractpin verify --format json` writes for that
// server, handshake and tools/list (the digests come from vectors.json).
type serverCase struct {
	report, server, init, tools string
	opts                        VerifyOptions
	exit                        int
	status                      InstructionsStatus
	pinned, live                string // vector names, "" for none
	versionChanged              *bool
}

func TestVerifyServerWritesTheCLIReport(t *testing.T) {
	yes, no := true, false
	cases := []serverCase{
		{"report-match.json", "acme", "initialize.json", "tools.json", VerifyOptions{}, 0,
			InstructionsUnchanged, "instructions-plain", "instructions-plain", &no},
		{"report-drifted.json", "acme", "initialize-drifted.json", "tools.json", VerifyOptions{}, 1,
			InstructionsDrifted, "instructions-plain", "instructions-injection", &yes},
		{"report-drifted-ignore.json", "acme", "initialize-drifted.json", "tools.json",
			VerifyOptions{IgnoreInstructions: true}, 0, InstructionsNotChecked, "", "", &yes},
		{"report-removed.json", "acme", "verify-server/initialize-removed.json", "tools-drifted.json",
			VerifyOptions{}, 1, InstructionsRemoved, "instructions-plain", "", &no},
		{"report-added.json", "bare", "initialize.json", "tools.json", VerifyOptions{}, 1,
			InstructionsAdded, "", "instructions-plain", &no},
		{"report-added-allow-new.json", "bare", "initialize.json", "tools.json",
			VerifyOptions{AllowNew: true}, 0, InstructionsAdded, "", "instructions-plain", &no},
	}
	lockBytes := readTestdata(t, filepath.Join("verify-server", "server.lock"))
	l := parseLock(t, lockBytes)
	digest := func(vector string) string {
		if vector == "" {
			return ""
		}
		return instructionsDigest(t, vector)
	}
	for _, c := range cases {
		want := readTestdata(t, filepath.Join("verify-server", c.report))
		init, tools := readTestdata(t, c.init), readTestdata(t, c.tools)
		fromBytes, err := VerifyServer(lockBytes, c.server, init, tools, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.report, err)
		}
		fromLock, err := l.VerifyServer(c.server, init, tools, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.report, err)
		}
		for _, r := range []*Report{fromBytes, fromLock} {
			if string(r.JSON) != string(want) {
				t.Errorf("%s: not the CLI's report:\n%s", c.report, r.JSON)
			}
			if r.ExitCode != c.exit || r.Instructions != c.status ||
				r.PinnedInstructions != digest(c.pinned) || r.LiveInstructions != digest(c.live) {
				t.Errorf("%s: %d %v %q %q", c.report, r.ExitCode, r.Instructions, r.PinnedInstructions, r.LiveInstructions)
			}
			if r.VersionChanged == nil || *r.VersionChanged != *c.versionChanged {
				t.Errorf("%s: version changed %v", c.report, r.VersionChanged)
			}
		}
	}
}

func TestVerifyReportsCheckNoFacts(t *testing.T) {
	l := parseLock(t, readTestdata(t, filepath.Join("verify-server", "server.lock")))
	r, err := l.Verify("acme", readTestdata(t, "tools.json"), VerifyOptions{IgnoreInstructions: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 || r.Instructions != InstructionsNotChecked || r.Instructions.String() != "not-checked" ||
		r.PinnedInstructions != "" || r.VersionChanged != nil {
		t.Errorf("%+v", r)
	}
}

func TestVerifyServerFailsClosed(t *testing.T) {
	lockBytes := readTestdata(t, filepath.Join("verify-server", "server.lock"))
	l := parseLock(t, lockBytes)
	tools := readTestdata(t, "tools.json")
	var e *Error
	_, err := l.VerifyServer("acme", []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), tools, VerifyOptions{})
	if !errors.As(err, &e) || !errors.Is(err, ErrUnexpectedByte) || e.Offset != 24 || e.Input != "initialize result" {
		t.Errorf("a whole response: %v", err)
	}
	if err != nil && err.Error() != "contractpin: unexpected-byte at byte 24 of the initialize result: byte not allowed here by JSON syntax" {
		t.Errorf("message: %v", err)
	}
	_, err = VerifyServer(lockBytes, "acme", []byte(`{}`), []byte(`[7]`), VerifyOptions{})
	if !errors.As(err, &e) || !errors.Is(err, ErrToolNotObject) || e.Offset != 1 || e.Input != "tools/list" {
		t.Errorf("a bad tools/list: %v", err)
	}
	_, err = VerifyServer([]byte(`{"a"`), "acme", []byte(`{}`), tools, VerifyOptions{})
	if !errors.As(err, &e) || !errors.Is(err, ErrLockSyntax) || e.Offset != 4 || e.Input != "lock" {
		t.Errorf("a bad lock: %v", err)
	}
	if _, err := l.VerifyServer("nope", []byte(`{}`), tools, VerifyOptions{}); !errors.Is(err, ErrLockUnknownServer) {
		t.Errorf("unknown server: %v", err)
	}
	l.Close()
	if _, err := l.VerifyServer("acme", []byte(`{}`), tools, VerifyOptions{}); !errors.Is(err, ErrLockClosed) {
		t.Errorf("closed: %v", err)
	}
}
