package mcpguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"contractpin.dev/go/contractpin"
	"contractpin.dev/go/contractpin/mcpguard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	cli        string // the contractpin CLI ($CONTRACTPIN_CLI)
	testBinary string // this test binary: the test server in server mode
)

// TestMain runs the test server in server mode; otherwise it requires the
// contractpin CLI, which writes the tests' locks.
func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		os.Exit(serve(os.Args[1:]))
	}
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: mcpguard tests:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(exampleDir)
	os.Exit(code)
}

// setup finds the CLI and this binary, and pins the example's server.
func setup() error {
	cli = os.Getenv("CONTRACTPIN_CLI")
	if cli == "" {
		return errors.New("CONTRACTPIN_CLI is not set: set it to the contractpin CLI (cargo build -p contractpin-cli; target/debug/contractpin), which pins the test server")
	}
	if st, err := os.Stat(cli); err != nil || st.IsDir() {
		return fmt.Errorf("CONTRACTPIN_CLI=%s is not the contractpin CLI binary (%v)", cli, err)
	}
	var err error
	if testBinary, err = os.Executable(); err != nil {
		return err
	}
	if exampleDir, err = os.MkdirTemp("", "mcpguard-example"); err != nil {
		return err
	}
	exampleLock = filepath.Join(exampleDir, "contractpin.lock")
	return pin(exampleLock, "-poison=echo")
}

// serverCommand is the test server with args.
func serverCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(testBinary, args...)
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	return cmd
}

// pin writes lockPath with `contractpin init`, pinning the test server run
// with args over stdio as "srv", for a client that declares roots (as a
// client of the Go SDK does).
func pin(lockPath string, args ...string) error {
	argv := append([]string{"init", "--lock", lockPath, "--name", "srv", "--env", serverEnv + "=1",
		"--client-capabilities", "roots", "--", testBinary}, args...)
	out, err := exec.Command(cli, argv...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("contractpin %s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return nil
}

// lockFor pins the test server run with args and returns the lock.
func lockFor(t *testing.T, args ...string) *contractpin.Lock {
	t.Helper()
	path := filepath.Join(t.TempDir(), "contractpin.lock")
	if err := pin(path, args...); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := contractpin.ParseLock(b)
	if err != nil {
		t.Fatalf("the lock contractpin init wrote does not parse: %v", err)
	}
	t.Cleanup(lock.Close)
	return lock
}

// events collects the OnEvent calls of a session.
type events struct {
	mu    sync.Mutex
	lines []string
}

// on is the OnEvent callback.
func (e *events) on(ev []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lines = append(e.lines, string(ev))
}

// statuses are the events as "status tool" (tool omitted when none).
func (e *events) statuses() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, line := range e.lines {
		var ev struct{ Status, Tool string }
		if json.Unmarshal([]byte(line), &ev) != nil {
			out = append(out, "not JSON: "+line)
			continue
		}
		out = append(out, strings.TrimSpace(ev.Status+" "+ev.Tool))
	}
	return out
}

// session is a guarded client session with the test server.
type session struct {
	*mcp.ClientSession
	events  *events
	changed chan struct{} // a notifications/tools/list_changed reached the client
}

// connect runs the test server with args under a CommandTransport with an
// enforcer of lock; the session is closed at the end of the test.
func connect(t *testing.T, lock *contractpin.Lock, eo contractpin.EnforcerOptions, o mcpguard.Options, args ...string) *session {
	t.Helper()
	e, err := lock.NewEnforcer("srv", eo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	s := &session{events: &events{}, changed: make(chan struct{}, 16)}
	o.OnEvent = s.events.on
	tr := &mcpguard.CommandTransport{Command: serverCommand(args...), Enforcer: e, Options: o, TerminateDuration: 2 * time.Second}
	s.ClientSession = connectWith(t, tr, s.changed)
	return s
}

// connectWith connects a client of the Go SDK through tr.
func connectWith(t *testing.T, tr mcp.Transport, changed chan struct{}) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpguard-test-client", Version: "1.0.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx(t), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// ctx is a context that ends with the test, or after 60 s.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// tools lists the session's tools: name to description.
func tools(t *testing.T, cs *mcp.ClientSession) map[string]string {
	t.Helper()
	res, err := cs.ListTools(ctx(t), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	out := map[string]string{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool.Description
	}
	return out
}

// names are the sorted keys of m.
func names(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// without is the sorted names of list without drop.
func without(list []string, drop ...string) []string {
	var out []string
	for _, n := range list {
		if !slices.Contains(drop, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// with is the sorted names of list and add.
func with(list []string, add ...string) []string {
	out := append(slices.Clone(list), add...)
	sort.Strings(out)
	return out
}

// call calls a tool; its text, or the error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, error) {
	t.Helper()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) != 1 {
		return "", fmt.Errorf("tool %s: an error result: %+v", name, res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// mustCall calls a tool that must run on the server and answer want.
func mustCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want string) {
	t.Helper()
	got, err := call(t, cs, name, args)
	if err != nil || got != want {
		t.Fatalf("calling %s: %q, %v; want %q", name, got, err, want)
	}
}

// mustRefuse calls a tool that must be refused with -32602 "Unknown tool".
func mustRefuse(t *testing.T, cs *mcp.ClientSession, name string) {
	t.Helper()
	got, err := call(t, cs, name, map[string]any{"text": "hi"})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != -32602 || rpc.Message != "Unknown tool: "+name {
		t.Fatalf("calling %s: %q, %v; want the JSON-RPC error -32602 \"Unknown tool: %s\"", name, got, err, name)
	}
}

// mustList checks the names ListTools returns.
func mustList(t *testing.T, cs *mcp.ClientSession, want []string) map[string]string {
	t.Helper()
	got := tools(t, cs)
	if !slices.Equal(names(got), want) {
		t.Fatalf("ListTools: %v; want %v", names(got), want)
	}
	return got
}

// mustEvents checks the session's events.
func mustEvents(t *testing.T, s *session, want ...string) {
	t.Helper()
	if got := s.events.statuses(); !slices.Equal(got, want) {
		t.Fatalf("events: %q; want %q", got, want)
	}
}

var hi = map[string]any{"text": "hi"}

// (a) A server that serves what was pinned: every tool listed, calls reach
// the server and return its results; the only event is the session's
// "client" (who connected, with which capabilities).
func TestPinnedServer(t *testing.T) {
	s := connect(t, lockFor(t), contractpin.EnforcerOptions{}, mcpguard.Options{})
	mustList(t, s.ClientSession, baseTools)
	mustCall(t, s.ClientSession, "echo", hi, "echo: hi")
	mustCall(t, s.ClientSession, "add", map[string]any{"a": 2, "b": 3}, "5")
	mustEvents(t, s, "client")
}

// The server of the next tests really cloaks: without the guard, a client
// of the Go SDK gets the poisoned echo and the extra tool.
func TestCloakWithoutGuard(t *testing.T) {
	cs := connectWith(t, &mcp.CommandTransport{Command: serverCommand("-poison=echo", "-extra=extra")}, nil)
	got := mustList(t, cs, with(baseTools, "extra"))
	if !strings.HasSuffix(got["echo"], poisonText) {
		t.Fatalf("echo's description %q: not poisoned", got["echo"])
	}
	mustCall(t, cs, "extra", nil, "extra ran")
}

// (b) A cloak: contractpin pinned the clean echo, the client is served a
// poisoned one: echo is hidden and refused without reaching the server;
// the other tools work.
func TestCloakedDrift(t *testing.T) {
	args := []string{"-poison=echo"}
	s := connect(t, lockFor(t, args...), contractpin.EnforcerOptions{}, mcpguard.Options{}, args...)
	mustList(t, s.ClientSession, without(baseTools, "echo"))
	mustRefuse(t, s.ClientSession, "echo")
	mustCall(t, s.ClientSession, "add", map[string]any{"a": 1, "b": 1}, "2")
	mustEvents(t, s, "client", "drifted echo", "call-refused echo")
}

// (c) A tool contractpin was not shown (not pinned) is hidden and refused.
func TestAddedTool(t *testing.T) {
	args := []string{"-extra=extra"}
	s := connect(t, lockFor(t, args...), contractpin.EnforcerOptions{}, mcpguard.Options{}, args...)
	mustList(t, s.ClientSession, baseTools)
	mustRefuse(t, s.ClientSession, "extra")
	mustCall(t, s.ClientSession, "echo", hi, "echo: hi")
	mustEvents(t, s, "client", "unpinned extra", "call-refused extra")
}

// (d) A swap in the session: after list_changed no tool is callable until
// the client lists again; then the swapped echo is hidden and refused.
func TestMidSessionSwap(t *testing.T) {
	s := connect(t, lockFor(t), contractpin.EnforcerOptions{}, mcpguard.Options{})
	mustList(t, s.ClientSession, baseTools)
	mustCall(t, s.ClientSession, "echo", hi, "echo: hi")
	mustCall(t, s.ClientSession, "swap", nil, "swapped")
	select {
	case <-s.changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/tools/list_changed reached the client")
	}
	mustRefuse(t, s.ClientSession, "echo")
	mustRefuse(t, s.ClientSession, "add") // not listed again yet: nothing passes
	got := mustList(t, s.ClientSession, without(baseTools, "echo"))
	if got["add"] != "Add two integers." {
		t.Fatalf("add: %q", got["add"])
	}
	mustRefuse(t, s.ClientSession, "echo")
	mustCall(t, s.ClientSession, "add", map[string]any{"a": 2, "b": 2}, "4")
}

// (e) Observe mode changes nothing on the wire and reports the events.
func TestObserve(t *testing.T) {
	args := []string{"-poison=echo", "-extra=extra"}
	s := connect(t, lockFor(t, args...), contractpin.EnforcerOptions{Observe: true}, mcpguard.Options{}, args...)
	got := mustList(t, s.ClientSession, with(baseTools, "extra"))
	if !strings.HasSuffix(got["echo"], poisonText) {
		t.Fatalf("echo's description %q: not as served", got["echo"])
	}
	mustCall(t, s.ClientSession, "echo", hi, "echo: hi")
	mustCall(t, s.ClientSession, "extra", nil, "extra ran")
	ev := s.events.statuses()
	for _, want := range []string{"drifted echo", "unpinned extra"} {
		if !slices.Contains(ev, want) {
			t.Fatalf("events %q: no %q", ev, want)
		}
	}
}

// (f) A server line over the limit ends the session with ErrLineTooLong
// while at most the limit is held: the server writes a line that never
// ends.
func TestLineTooLong(t *testing.T) {
	s := connect(t, lockFor(t), contractpin.EnforcerOptions{}, mcpguard.Options{MaxLineBytes: 1 << 20})
	mustList(t, s.ClientSession, baseTools)
	_, err := call(t, s.ClientSession, "flood", nil)
	if !errors.Is(err, mcpguard.ErrLineTooLong) {
		t.Fatalf("calling flood: %v; want ErrLineTooLong", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the session did not end")
	}
	if _, err := call(t, s.ClientSession, "echo", hi); err == nil {
		t.Fatal("the session still works")
	}
}

// (g) Lines of the server that are not JSON-RPC messages, before the
// handshake and during the session, are dropped (the SDK alone would end
// the session on the first one); each is an event.
func TestJunkDropped(t *testing.T) {
	args := []string{"-junk=2"}
	s := connect(t, lockFor(t, args...), contractpin.EnforcerOptions{}, mcpguard.Options{}, args...)
	mustList(t, s.ClientSession, baseTools)
	mustCall(t, s.ClientSession, "junk", map[string]any{"n": 3}, "junk written")
	mustCall(t, s.ClientSession, "echo", hi, "echo: hi")
	mustEvents(t, s, "client", "skipped", "skipped", "skipped", "skipped", "skipped")
}

// A call whose arguments nest deeper than the enforcer reads is refused
// with an error for that call, by its id: the session goes on (a null-id
// answer made the SDK end it).
func TestTooDeepCallFailsAlone(t *testing.T) {
	s := connect(t, lockFor(t), contractpin.EnforcerOptions{}, mcpguard.Options{})
	mustList(t, s.ClientSession, baseTools)
	var deep any = "x"
	for i := 0; i < 300; i++ {
		deep = []any{deep}
	}
	_, err := call(t, s.ClientSession, "echo", map[string]any{"text": deep})
	if err == nil || !strings.Contains(err.Error(), "Invalid Request") {
		t.Fatalf("a call nested 300 deep: %v; want the enforcer's Invalid Request", err)
	}
	mustCall(t, s.ClientSession, "echo", hi, "echo: hi")
}

// Past the first 100 dropped lines of a kind, each gets no event of its
// own: a skipped-more event counts them when the server's output ends. The
// server writes 153 junk lines, two in three stray output (102) and one in
// three refused (51).
func TestJunkSummarized(t *testing.T) {
	s := connect(t, lockFor(t), contractpin.EnforcerOptions{}, mcpguard.Options{})
	mustList(t, s.ClientSession, baseTools)
	mustCall(t, s.ClientSession, "junk", map[string]any{"n": 153}, "junk written")
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	want := append(append([]string{"client"}, slices.Repeat([]string{"skipped"}, 151)...), "skipped-more")
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(s.events.statuses(), want) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	got := s.events.statuses()
	if !slices.Equal(got, want) {
		t.Fatalf("events %q (%d); want client, 151 skipped, skipped-more", got, len(got))
	}
	s.events.mu.Lock()
	last := s.events.lines[len(s.events.lines)-1]
	s.events.mu.Unlock()
	if !strings.HasPrefix(last, `{"count":2,"reason":"2 more server line(s) that are not JSON-RPC messages were dropped`) {
		t.Fatalf("the summary: %s", last)
	}
}

// Stream under an mcp.IOTransport, with a server of the Go SDK in this
// process: the same check without a child process.
func TestStream(t *testing.T) {
	lock := lockFor(t, "-poison=echo")
	e, err := lock.NewEnforcer("srv", contractpin.EnforcerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	fromServer, serverOut := io.Pipe()
	serverIn, toServer := io.Pipe()
	go func() {
		_ = newServer(serverConfig{poison: "echo"}).Run(context.Background(), &mcp.IOTransport{Reader: serverIn, Writer: serverOut})
	}()
	r, w := mcpguard.Stream(fromServer, toServer, e, mcpguard.Options{})
	cs := connectWith(t, &mcp.IOTransport{Reader: r, Writer: w}, make(chan struct{}, 1))
	mustList(t, cs, without(baseTools, "echo"))
	mustRefuse(t, cs, "echo")
	mustCall(t, cs, "add", map[string]any{"a": 1, "b": 2}, "3")
}

// A closed session leaves no goroutine of the transport behind.
func TestNoGoroutineLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	lock := lockFor(t)
	for i := 0; i < 3; i++ {
		e, err := lock.NewEnforcer("srv", contractpin.EnforcerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tr := &mcpguard.CommandTransport{Command: serverCommand(), Enforcer: e}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx(t), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		mustList(t, cs, baseTools)
		mustCall(t, cs, "add", map[string]any{"a": 1, "b": 2}, "3")
		if err := cs.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		e.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
