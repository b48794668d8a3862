package mcpguard

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"contractpin.dev/go/contractpin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultTerminate is the default of CommandTransport.TerminateDuration,
// as in mcp.CommandTransport.
const defaultTerminate = 5 * time.Second

// CommandTransport is an mcp.Transport that runs a stdio MCP server, as
// mcp.CommandTransport does, with Enforcer deciding every message between
// it and the client (see Stream):
//
//	session, err := client.Connect(ctx, &mcpguard.CommandTransport{Command: cmd, Enforcer: enforcer}, nil)
//
// Closing the session shuts the server down as mcp.CommandTransport does:
// its stdin closed, then SIGTERM and SIGKILL, TerminateDuration apart.
type CommandTransport struct {
	// Command is the server, not started yet, with Stdin and Stdout nil
	// (Connect makes them pipes). Its Stderr is left as set.
	Command *exec.Cmd
	// Enforcer decides the session's messages: a new one for each
	// session (it holds the session's state). The transport does not
	// close it.
	Enforcer *contractpin.Enforcer
	// Options are the line limit and the event callback.
	Options
	// TerminateDuration is how long the server gets to exit after its
	// stdin is closed, and after SIGTERM; 0 means 5 s.
	TerminateDuration time.Duration
}

// Connect starts the server and returns the SDK's newline-delimited JSON
// connection over its guarded stdio. The SDK's own frame limit is off: the
// guard bounds every line before the SDK reads any of it.
func (t *CommandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.Command == nil || t.Enforcer == nil {
		return nil, errors.New("mcpguard: CommandTransport needs a Command and an Enforcer")
	}
	if t.Command.Stdin != nil || t.Command.Stdout != nil {
		return nil, errors.New("mcpguard: CommandTransport's Command must have Stdin and Stdout nil")
	}
	stdout, err := t.Command.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.Command.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.Command.Start(); err != nil {
		return nil, err
	}
	grace := t.TerminateDuration
	if grace <= 0 {
		grace = defaultTerminate
	}
	// Closing the reader does not close stdout: the server is stopped
	// through stdin, and Wait closes stdout once it exited.
	r, w := Stream(io.NopCloser(stdout), &process{cmd: t.Command, stdin: stdin, grace: grace}, t.Enforcer, t.Options)
	return (&mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}).Connect(ctx)
}

// process is a running server's stdin; closing it shuts the server down.
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	grace time.Duration
	once  sync.Once
	err   error
}

// Write writes to the server's stdin.
func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close stops the server once; every call returns how it exited.
func (p *process) Close() error {
	p.once.Do(func() { p.err = p.stop() })
	return p.err
}

// stop closes the server's stdin and waits for it to exit, sending SIGTERM
// then SIGKILL when it takes longer than the grace time.
func (p *process) stop() error {
	_ = p.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	signals := []os.Signal{syscall.SIGTERM, os.Kill}
	for i := 0; ; i++ {
		select {
		case err := <-exited:
			return err
		case <-time.After(p.grace):
		}
		if i == len(signals) {
			return errors.New("mcpguard: the server did not exit after SIGKILL")
		}
		_ = p.cmd.Process.Signal(signals[i])
	}
}
