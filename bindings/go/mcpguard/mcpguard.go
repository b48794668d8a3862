// Package mcpguard puts contractpin's run-time check under a client of the
// official Go MCP SDK (github.com/modelcontextprotocol/go-sdk), so that the
// client enforces a contractpin.lock without `contractpin proxy` in front
// of the server:
//
//	enforcer, err := lock.NewEnforcer("demo", contractpin.EnforcerOptions{})
//	...
//	session, err := client.Connect(ctx, &mcpguard.CommandTransport{Command: cmd, Enforcer: enforcer}, nil)
//
// The Enforcer (contractpin.dev/go/contractpin) sees the raw bytes of every
// message, exactly as on the wire: the package works below the SDK's
// JSON-RPC decoding, on the newline-delimited stdio stream. Each line the
// server writes is decided by Enforcer.Server before the SDK reads anything
// of it; each line the SDK writes is decided by Enforcer.Client before the
// server gets it, and the enforcer's own answers (a refused tools/call's
// -32602 "Unknown tool") are put into the stream the SDK reads. The SDK
// decodes only the bytes the enforcer passed on, with no re-encoding in
// between: a drifted or unpinned tool is missing from ListTools, and
// calling it is an error naming it, without the server hearing of it.
//
// Lines that are not JSON-RPC messages (a server's stray output) are
// dropped; the first 100 of each kind in a session (stray output, refused
// messages) are each reported as a "skipped" event, later ones are counted
// in a "skipped-more" event (at most one a minute while they keep coming,
// and one when the server's output ends), as the proxy logs them.
//
// Fail closed: a line over MaxLineBytes or an error of the enforcer ends
// the session (the SDK reads an error); nothing undecided is passed on. A
// request of the client that the enforcer cannot read to the end (nested
// deeper than the limits allow, or longer than their MaxInput) is not
// sent: the SDK gets an error for that request (-32600, by its id), as the
// proxy answers it (a response or notification it cannot read gets the
// null-id -32700, which the SDK takes for a broken connection).
//
// A client of the Go SDK declares the roots capability: pin its servers
// with `contractpin init --client-capabilities roots ...`, or every session
// reports a "capabilities-differ" event (the server may list other tools to
// such a client than the ones pinned).
package mcpguard

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"contractpin.dev/go/contractpin"
)

// DefaultMaxLineBytes is the longest line accepted in either direction when
// Options.MaxLineBytes is 0: the default of `contractpin proxy
// --max-line-bytes` (16 MiB).
const DefaultMaxLineBytes = 16 << 20

// ErrLineTooLong ends a session whose server (or client) wrote a line longer
// than the limit: it is never read whole, so a hostile server cannot make
// the client buffer without bound.
var ErrLineTooLong = errors.New("mcpguard: a line is longer than the limit (Options.MaxLineBytes)")

// Options are the settings of Stream and CommandTransport; the zero value
// is the proxy's default.
type Options struct {
	// OnEvent, if not nil, gets each event of the enforcer: one canonical
	// JSON object, the line `contractpin proxy --log` writes without its
	// "at" member. Calls are never concurrent and come in the order the
	// messages were decided; OnEvent must not block for long, and must not
	// use the session (the transport waits for it).
	OnEvent func(event []byte)
	// MaxLineBytes is the longest line (without its newline) accepted from
	// the server or the client; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// maxLine is the line limit in effect.
func (o Options) maxLine() int {
	if o.MaxLineBytes > 0 {
		return o.MaxLineBytes
	}
	return DefaultMaxLineBytes
}

// summaryEvery is how often, at most, OnEvent gets the enforcer's
// "skipped-more" events while dropped messages keep coming, as the proxy
// logs them (one more comes when the server's output ends).
const summaryEvery = time.Minute

// guard is the state of one guarded stream.
type guard struct {
	e          *contractpin.Enforcer
	opts       Options
	mu         sync.Mutex // serializes decisions with their OnEvent calls
	in         *inbox     // what the SDK reads
	summarized time.Time  // when the last summary was asked for
}

// Stream interposes e on a server's newline-delimited JSON-RPC stream:
// fromServer is what the server writes (its stdout), toServer what it reads
// (its stdin). It returns the two ends an mcp.IOTransport takes:
//
//	r, w := mcpguard.Stream(stdout, stdin, enforcer, mcpguard.Options{})
//	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}, nil)
//
// (MaxLineLength -1 turns the SDK's own 16 MiB frame limit off: the guard
// bounds each line by Options.MaxLineBytes before the SDK reads it.)
// Closing r closes fromServer; closing w closes toServer. A goroutine reads
// fromServer until it fails or ends (its end is the end of r), or r is
// closed. CommandTransport does this for a server it runs.
func Stream(fromServer io.ReadCloser, toServer io.WriteCloser, e *contractpin.Enforcer, opts Options) (io.ReadCloser, io.WriteCloser) {
	g := &guard{e: e, opts: opts, in: newInbox(), summarized: time.Now()}
	go g.pump(fromServer)
	return &reader{g.in, fromServer}, &writer{g: g, to: toServer}
}

// decide runs the enforcer on one line and reports its events.
func (g *guard) decide(line []byte, client bool) (contractpin.Decision, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var d contractpin.Decision
	var err error
	if client {
		d, err = g.e.Client(line)
	} else {
		d, err = g.e.Server(line)
	}
	if err != nil {
		return d, fmt.Errorf("mcpguard: the enforcer failed, ending the session: %w", err)
	}
	g.report(d.Events)
	if time.Since(g.summarized) >= summaryEvery {
		g.summary()
	}
	return d, nil
}

// report passes events to OnEvent.
func (g *guard) report(events [][]byte) {
	if g.opts.OnEvent != nil {
		for _, ev := range events {
			g.opts.OnEvent(ev)
		}
	}
}

// summary reports the enforcer's "skipped-more" events (the drops past the
// first 100 of each kind), if any; g.mu is held.
func (g *guard) summary() {
	g.summarized = time.Now()
	if events, err := g.e.Summary(); err == nil {
		g.report(events)
	}
}

// errReaderClosed stops the pump: nobody reads what the server writes.
var errReaderClosed = errors.New("mcpguard: the stream was closed")

// pump reads the server's lines until they end, and passes on what the
// enforcer lets through; its end (io.EOF, ErrLineTooLong, a read or
// enforcer error) is the end of what the SDK reads.
func (g *guard) pump(fromServer io.Reader) {
	err := readLines(fromServer, g.opts.maxLine(), g.serverLine)
	g.mu.Lock()
	g.summary()
	g.mu.Unlock()
	g.in.end(err)
	// However the reading ended (the reader closed, a line over the limit,
	// an error of the enforcer), keep the server's pipe flowing until it is
	// closed, so that a server blocked on a write sees its stdin close and
	// exits when asked to, without waiting for a signal.
	_, _ = io.Copy(io.Discard, fromServer)
}

// serverLine decides one line of the server and queues what passes.
func (g *guard) serverLine(line []byte) error {
	d, err := g.decide(line, false)
	if err != nil {
		return err
	}
	if out := d.Forwarded(line); out != nil && !g.in.put(frame(out), true) {
		return errReaderClosed
	}
	return nil
}

// frame is msg with its newline, in a new slice.
func frame(msg []byte) []byte {
	b := make([]byte, len(msg)+1)
	copy(b, msg)
	b[len(msg)] = '\n'
	return b
}

// reader is the end the SDK reads from.
type reader struct {
	in         *inbox
	fromServer io.Closer
}

// Read reads the lines passed on, in order.
func (r *reader) Read(p []byte) (int, error) { return r.in.Read(p) }

// Close stops the stream and closes the server's output.
func (r *reader) Close() error {
	r.in.Close()
	return r.fromServer.Close()
}
