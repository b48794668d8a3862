package contractpin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testdata shared with the C suite; digests computed with Python's hashlib.
var testdata = filepath.Join("..", "c", "testdata")

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// expected reads testdata/expected.txt: "key value" lines ("tool NAME value").
func expected(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(readTestdata(t, "expected.txt")))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		m[line[:i]] = line[i+1:]
	}
	return m
}

func TestVersion(t *testing.T) {
	if Version() != HeaderVersion {
		t.Fatalf("library %q, header %q", Version(), HeaderVersion)
	}
}

func TestCanonicalize(t *testing.T) {
	got, err := Canonicalize([]byte(`{"b":1,"a":[1.0,"\u0041",1e21,-0]}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"a":[1,"A",1e+21,0],"b":1}` {
		t.Fatalf("got %s", got)
	}
	// Output longer than the first buffer guess (len+64): grows once.
	doc := "[" + strings.Repeat("1e20,", 40) + "1e20]"
	got, err = Canonicalize([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if want := "[" + strings.Repeat("100000000000000000000,", 40) + "100000000000000000000]"; string(got) != want {
		t.Fatalf("got %s", got)
	}
}

func TestErrorsAreTyped(t *testing.T) {
	cases := []struct {
		in     string
		kind   Status
		offset int
	}{
		{`{"a":1,}`, ErrUnexpectedByte, 7},
		{``, ErrUnexpectedEnd, 0},
		{`{"a":1,"a":2}`, ErrDuplicateKey, 7},
		{`[1] x`, ErrTrailingData, 4},
		{"\xEF\xBB\xBF{}", ErrByteOrderMark, 0},
	}
	for _, c := range cases {
		_, err := Canonicalize([]byte(c.in))
		if !errors.Is(err, c.kind) {
			t.Errorf("%q: %v, want %v", c.in, err, c.kind)
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind != c.kind || e.Offset != c.offset {
			t.Errorf("%q: %#v, want kind %v offset %d", c.in, e, c.kind, c.offset)
		}
		if errors.Is(err, ErrInvalidNumber) && c.kind != ErrInvalidNumber {
			t.Errorf("%q matched the wrong sentinel", c.in)
		}
	}
	_, err := Canonicalize([]byte(`[01]`))
	if want := "contractpin: invalid-number at byte 1: malformed number"; err == nil || err.Error() != want {
		t.Errorf("message %v, want %q", err, want)
	}
}

func TestStatusNamesMatchTheLibrary(t *testing.T) {
	seen := map[Status]bool{}
	for _, s := range allStatuses {
		if s.Name() == "unknown-status" || seen[s] {
			t.Errorf("status %d: %q", uint32(s), s.Name())
		}
		seen[s] = true
	}
	// Every status the library knows has a Go constant.
	for code := uint32(1); code < 1000; code++ {
		if Status(code).Name() != "unknown-status" && !seen[Status(code)] {
			t.Errorf("status %d (%s) has no Go constant", code, Status(code).Name())
		}
	}
	if ErrDuplicateKey.Name() != "duplicate-key" || ErrLockUnknownServer.Name() != "lock-unknown-server" {
		t.Error("names")
	}
}

func TestToolDigest(t *testing.T) {
	tool := `{"name":"echo","title":"ignored","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}},"description":"Echo back"}`
	d, err := ToolDigest([]byte(tool))
	if err != nil {
		t.Fatal(err)
	}
	if d != "sha256:6f03644ed9f8359b37fef4fee1a2525b6f6bf05124ec4fbb4af7fd17e01e0c13" {
		t.Fatalf("digest %s", d)
	}
	c, err := ToolContract([]byte(tool))
	if err != nil || string(c) != `{"description":"Echo back","inputSchema":{"properties":{"text":{"type":"string"}},"type":"object"},"name":"echo"}` {
		t.Fatalf("contract %s %v", c, err)
	}
	_, err = ToolDigest([]byte(`{"name":1}`))
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrNameNotString || e.Offset != 8 {
		t.Fatalf("%v", err)
	}
}

func TestDigestToolsList(t *testing.T) {
	want := expected(t)
	s, err := DigestToolsList(readTestdata(t, "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Digest != want["server"] || len(s.Tools) != 2 {
		t.Fatalf("%+v", s)
	}
	for _, tool := range s.Tools {
		if tool.Digest != want["tool "+tool.Name] {
			t.Errorf("%s: %s", tool.Name, tool.Digest)
		}
	}
	echo, ok := s.Tool("echo")
	if !ok || len(echo.Fields) != 4 || echo.Fields["annotations"] == "" || echo.Fields["outputSchema"] != "" {
		t.Errorf("echo fields %v", echo.Fields)
	}
	// The JSON form is the lock's server entry.
	var entry struct {
		Digest    string `json:"digest"`
		ToolCount int    `json:"tool_count"`
		Tools     map[string]struct {
			Digest string            `json:"digest"`
			Fields map[string]string `json:"fields"`
		} `json:"tools"`
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &entry); err != nil {
		t.Fatal(err)
	}
	if entry.Digest != want["server"] || entry.ToolCount != 2 || entry.Tools["add"].Digest != want["tool add"] {
		t.Errorf("%s", b)
	}
	// Errors and limits.
	_, err = DigestToolsList([]byte(`{"tools":[{"name":"a"},{"name":"a"}]}`))
	if !errors.Is(err, ErrDuplicateToolName) {
		t.Errorf("%v", err)
	}
	l := DefaultLimits()
	if l.MaxDepth != 256 || l.MaxTools != 100000 || l.MaxInput != 64<<20 {
		t.Errorf("%+v", l)
	}
	l.MaxTools = 1
	_, err = DigestToolsListWithLimits([]byte(`[{"name":"a"},{"name":"b"}]`), &l)
	if !errors.Is(err, ErrToolLimit) {
		t.Errorf("%v", err)
	}
	s, err = DigestToolsList([]byte(`[]`))
	if err != nil || len(s.Tools) != 0 {
		t.Errorf("%v %v", s, err)
	}
}

func TestVerify(t *testing.T) {
	want := expected(t)
	lock := readTestdata(t, "demo.lock")

	r, err := Verify(lock, "demo", readTestdata(t, "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 || r.PinnedDigest != want["server"] || r.LiveDigest != want["server"] {
		t.Fatalf("%+v", r)
	}

	r, err = Verify(lock, "demo", readTestdata(t, "tools-drifted.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 1 || len(r.Tools) != 2 {
		t.Fatalf("%+v", r)
	}
	echo := r.Tools[1]
	if echo.Name != "echo" || echo.Status != Drifted || len(echo.ChangedFields) != 1 ||
		echo.ChangedFields[0] != "description" || echo.Live != want["drifted-echo"] || echo.Pinned != want["tool echo"] {
		t.Errorf("%+v", echo)
	}
	var doc map[string]any
	if err := json.Unmarshal(r.JSON, &doc); err != nil || doc["exit_code"] != float64(1) {
		t.Errorf("report JSON %s", r.JSON)
	}

	added := readTestdata(t, "tools-added.json")
	r, err = Verify(lock, "demo", added)
	if err != nil || r.ExitCode != 1 || r.Tools[2].Status != Added || r.Tools[2].Name != "fetch" {
		t.Fatalf("%+v %v", r, err)
	}
	r, err = VerifyWithOptions(lock, "demo", added, VerifyOptions{AllowNew: true})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("%+v %v", r, err)
	}

	// A rename hint: echo served under a new name.
	renamed := bytes.Replace(readTestdata(t, "tools.json"), []byte(`"name": "echo"`), []byte(`"name": "echo2"`), 1)
	r, err = Verify(lock, "demo", renamed)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tools[1].Name != "echo" || r.Tools[1].Status != Removed || r.Tools[1].RenamedTo != "echo2" ||
		r.Tools[2].Name != "echo2" || r.Tools[2].Status != Added || r.Tools[2].RenamedFrom != "echo" {
		t.Errorf("%+v", r.Tools)
	}

	// No verdict: lock errors, a bad live list.
	if _, err := Verify(lock, "nope", added); !errors.Is(err, ErrLockUnknownServer) {
		t.Errorf("%v", err)
	}
	_, err = Verify(lock[:20], "demo", added)
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrLockSyntax || e.Offset != 20 {
		t.Errorf("%v", err)
	}
	if _, err := Verify(bytes.Replace(lock, []byte(`"contractpin": "1"`), []byte(`"contractpin": "9"`), 1), "demo", added); !errors.Is(err, ErrLockUnsupportedVersion) {
		t.Errorf("%v", err)
	}
	if _, err := Verify(lock, "demo", []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`)); !errors.Is(err, ErrJSONRPCError) {
		t.Errorf("%v", err)
	}
	if _, err := Verify(lock, "", nil); !errors.Is(err, ErrLockUnknownServer) {
		t.Errorf("%v", err)
	}
}

// The library is called from many goroutines at once (run with -race).
func TestConcurrentUse(t *testing.T) {
	lock := readTestdata(t, "demo.lock")
	list := readTestdata(t, "tools.json")
	want := expected(t)["server"]
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				s, err := DigestToolsList(list)
				if err != nil || s.Digest != want {
					errs <- err
					return
				}
				r, err := Verify(lock, "demo", list)
				if err != nil || r.ExitCode != 0 {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error("concurrent call failed:", err)
	}
}
