package mcpguard

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"contractpin.dev/go/contractpin"
)

// lines runs readLines on s with limit max.
func lines(s string, max int) ([]string, error) {
	var got []string
	err := readLines(strings.NewReader(s), max, func(l []byte) error {
		got = append(got, string(l))
		return nil
	})
	return got, err
}

// The server's lines are read as `contractpin proxy` reads them.
func TestReadLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want []string
		err  error
	}{
		{"a\nb\r\n\n \t\r\nlast", 10, []string{"a", "b", "last"}, io.EOF},
		{"12345\n", 5, []string{"12345"}, io.EOF},
		{"12345\r\n", 5, nil, ErrLineTooLong}, // the CR counts, as in the proxy
		{"ok\n123456\nnever", 5, []string{"ok"}, ErrLineTooLong},
		{"123456", 5, nil, ErrLineTooLong},
	} {
		got, err := lines(c.in, c.max)
		if !slices.Equal(got, c.want) || err != c.err {
			t.Errorf("%q (max %d): %q, %v; want %q, %v", c.in, c.max, got, err, c.want, c.err)
		}
	}
}

// endless is a line that never ends, counting what was read of it.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += len(p)
	return len(p), nil
}

// A line that never ends is refused after at most the limit and a buffer.
func TestReadLinesBounded(t *testing.T) {
	r := &endless{}
	if err := readLines(r, 1<<20, func([]byte) error { return nil }); err != ErrLineTooLong {
		t.Fatalf("%v; want ErrLineTooLong", err)
	}
	if r.read > 1<<20+readBuffer {
		t.Fatalf("read %d bytes of the line, limit 1 MiB", r.read)
	}
}

// exampleEnforcer is a new enforcer of examples/contractpin.lock: no
// listing yet, so no tool is callable.
func exampleEnforcer(t *testing.T) *contractpin.Enforcer {
	dir := filepath.Join("..", "..", "..", "examples")
	b, err := os.ReadFile(filepath.Join(dir, "contractpin.lock"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := contractpin.ParseLock(b)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	e, err := lock.NewEnforcer("example", contractpin.EnforcerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// sink is a server's stdin.
type sink struct{ bytes.Buffer }

func (*sink) Close() error { return nil }

// The SDK's lines are decided whole however they are written; the reply to
// a refused call goes to the SDK, nothing to the server; a line over the
// limit fails the Write and every later one.
func TestWriter(t *testing.T) {
	g := &guard{e: exampleEnforcer(t), opts: Options{MaxLineBytes: 200}, in: newInbox()}
	to := &sink{}
	w := &writer{g: g, to: to}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"translate","arguments":{}}}` + "\r\n"
	ping := `{"jsonrpc":"2.0","id":8,"method":"ping"}` + "\n\n"
	for _, part := range []string{call[:10], call[10:50], call[50:] + ping[:5], ping[5:]} {
		if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write(%q): %d, %v", part, n, err)
		}
	}
	if got, want := to.String(), `{"jsonrpc":"2.0","id":8,"method":"ping"}`+"\n"; got != want {
		t.Fatalf("to the server: %q; want %q", got, want)
	}
	g.in.end(io.EOF)
	reply, _ := io.ReadAll(g.in)
	if !bytes.HasPrefix(reply, []byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: translate"`)) || !bytes.HasSuffix(reply, []byte("}\n")) {
		t.Fatalf("to the SDK: %q", reply)
	}
	long := strings.Repeat(" ", 201)
	for i := 0; i < 2; i++ {
		if _, err := w.Write([]byte(long)); !errors.Is(err, ErrLineTooLong) {
			t.Fatalf("a line over the limit: %v", err)
		}
	}
}
