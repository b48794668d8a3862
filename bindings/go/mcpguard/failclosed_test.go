package mcpguard

// Fail closed, and shut down without waiting: what the guard does when the
// enforcer fails, a line is too long, the SDK stops reading, or the server
// will not exit.

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A line of the SDK over the limit fails the Write even when its newline
// comes in the same Write, and nothing of it reaches the server.
func TestWriterLongLineWithNewline(t *testing.T) {
	g := &guard{e: exampleEnforcer(t), opts: Options{MaxLineBytes: 200}, in: newInbox()}
	to := &sink{}
	w := &writer{g: g, to: to}
	line := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("a", 200) + `"}}` + "\n"
	if _, err := w.Write([]byte(line)); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("a line over the limit with its newline: %v", err)
	}
	if to.Len() != 0 {
		t.Fatalf("to the server: %q", to.String())
	}
}

// Once the enforcer is closed, nothing passes either way: the SDK's Write
// fails without the server hearing of it, and the SDK reads an error, not
// the server's next line.
func TestEnforcerClosedMidSession(t *testing.T) {
	e := exampleEnforcer(t)
	fromServer, serverOut := io.Pipe()
	to := &sink{}
	r, w := Stream(fromServer, to, e, Options{})
	t.Cleanup(func() { _ = r.Close() })
	sdk := bufio.NewReader(r)
	note := func(n string) {
		go func() {
			_, _ = io.WriteString(serverOut, `{"jsonrpc":"2.0","method":"notifications/message","params":{"n":`+n+`}}`+"\n")
		}()
	}
	note("1")
	if l, err := sdk.ReadString('\n'); err != nil || !strings.Contains(l, `"n":1`) {
		t.Fatalf("before Close: %q, %v", l, err)
	}
	e.Close()
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")); err == nil {
		t.Fatal("a Write after the enforcer closed succeeded")
	}
	if to.Len() != 0 {
		t.Fatalf("to the server after Close: %q", to.String())
	}
	note("2")
	if l, err := sdk.ReadString('\n'); err == nil {
		t.Fatalf("the SDK read %q after the enforcer closed", l)
	}
}

// The server's lines wait for the SDK past the budget (back-pressure), the
// enforcer's replies never wait, and closing the reader wakes a waiting
// put, which then queues nothing.
func TestInboxBudget(t *testing.T) {
	b := newInbox()
	big := make([]byte, outBudget)
	if !b.put(big, true) {
		t.Fatal("the first line, alone, must pass")
	}
	if !b.put([]byte("reply\n"), false) {
		t.Fatal("a reply must not wait")
	}
	done := make(chan bool, 1)
	go func() { done <- b.put([]byte("next\n"), true) }()
	select {
	case <-done:
		t.Fatal("a server line past the budget did not wait")
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := io.ReadFull(b, make([]byte, outBudget)); err != nil {
		t.Fatal(err)
	}
	if !<-done {
		t.Fatal("the waiting line was not queued once the SDK read")
	}
	b.put(big, false) // a reply spends the budget again
	go func() { done <- b.put([]byte("late\n"), true) }()
	time.Sleep(50 * time.Millisecond)
	b.Close()
	select {
	case queued := <-done:
		if queued {
			t.Fatal("a line was queued after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake the waiting put")
	}
}

// A server that ignores its stdin closing and SIGTERM is killed, and Close
// returns only once it is gone.
func TestStopKills(t *testing.T) {
	cmd := exec.Command("sh", "-c", "trap '' TERM; echo ready; exec sleep 60")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sh: %v", err)
	}
	// SIGTERM before the trap would end it: wait until it ignores TERM.
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the server did not get ready: %q, %v", line, err)
	}
	p := &process{cmd: cmd, stdin: stdin, grace: 100 * time.Millisecond}
	start := time.Now()
	err = p.Close()
	if cmd.ProcessState == nil {
		t.Fatalf("Close returned (%v) with the server still running", err)
	}
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("Close: %v; want the server killed", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Close took %v", d)
	}
	if again := p.Close(); again != err {
		t.Fatalf("a second Close: %v; want %v", again, err)
	}
}

// After a line over the limit, the rest of the server's output is read and
// discarded: a server still writing that line finishes it, sees its stdin
// close and exits by itself, without waiting TerminateDuration for SIGTERM.
func TestCloseAfterLineTooLong(t *testing.T) {
	script := "head -c 8388608 /dev/zero | tr '\\0' x; exec cat > /dev/null"
	tr := &CommandTransport{Command: exec.Command("sh", "-c", script), Enforcer: exampleEnforcer(t),
		Options: Options{MaxLineBytes: 1 << 20}, TerminateDuration: 3 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Read(ctx); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("Read: %v; want ErrLineTooLong", err)
	}
	start := time.Now()
	if err := conn.Close(); err != nil {
		t.Fatalf("Close: %v; want the server's own exit", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Fatalf("Close took %v: the server waited for a signal", d)
	}
}

// A server writing faster than the SDK reads is held back once the budget
// is queued: its writes block on the pipe, as they do under `contractpin
// proxy`, and the guard holds no more than the budget and a line.
func TestBackPressure(t *testing.T) {
	fromServer, serverOut := io.Pipe()
	r, _ := Stream(fromServer, &sink{}, exampleEnforcer(t), Options{})
	t.Cleanup(func() { _ = r.Close() })
	line := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"pad":"` + strings.Repeat("a", 1<<20) + `"}}` + "\n")
	written := make(chan int, 64)
	go func() {
		for i := 0; i < 16; i++ {
			if _, err := serverOut.Write(line); err != nil {
				return
			}
			written <- i + 1
		}
	}()
	lines := 0
	for deadline := time.After(500 * time.Millisecond); ; {
		select {
		case n := <-written:
			lines = n
			continue
		case <-deadline:
		}
		break
	}
	if max := outBudget/len(line) + 2; lines > max {
		t.Fatalf("the server wrote %d lines of %d bytes with nobody reading; at most %d fit the budget", lines, len(line), max)
	}
	if lines == 0 {
		t.Fatal("no line passed at all")
	}
}

// A Command whose stdio is already set is refused before anything starts.
func TestConnectNeedsItsOwnPipes(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 0")
	cmd.Stdin = strings.NewReader("")
	_, err := (&CommandTransport{Command: cmd, Enforcer: exampleEnforcer(t)}).Connect(context.Background())
	// Refused before any pipe is made (StdoutPipe would set Stdout).
	if err == nil || cmd.Process != nil || cmd.Stdout != nil {
		t.Fatalf("Connect with Stdin set: %v (started: %v, Stdout %v)", err, cmd.Process != nil, cmd.Stdout)
	}
}
