package mcpguard

import (
	"io"
	"sync"
)

// outBudget is how many bytes of the server's lines may wait for the SDK to
// read them before the pump waits (so a client that stops reading
// back-pressures the server through its pipe, as in `contractpin proxy`).
// One longer line passes alone.
const outBudget = 4 << 20

// inbox is the stream the SDK reads: whole lines, each with its newline,
// from the server (through the pump) and from the enforcer (its replies),
// never interleaved. A writer queues a reply without waiting for the
// reader: the SDK may be writing while its reader is busy.
type inbox struct {
	mu     sync.Mutex
	cond   *sync.Cond
	lines  [][]byte // oldest first; lines[0] may be partly read
	queued int      // bytes in lines
	err    error    // how the stream ends, after lines; nil while open
	closed bool     // the reader closed: nothing more is queued or read
}

// newInbox returns an empty, open inbox.
func newInbox() *inbox {
	b := &inbox{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// put queues line; with wait, it first waits while the budget is spent.
// It reports false (line not queued) once the stream ended or was closed.
func (b *inbox) put(line []byte, wait bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for wait && b.queued > 0 && b.queued+len(line) > outBudget && !b.closed {
		b.cond.Wait()
	}
	if b.closed || b.err != nil {
		return false
	}
	b.lines = append(b.lines, line)
	b.queued += len(line)
	b.cond.Broadcast()
	return true
}

// end ends the stream with err (io.EOF: cleanly) after the queued lines.
func (b *inbox) end(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = err
	}
	b.cond.Broadcast()
}

// Read reads the queued lines in order, then the end's error.
func (b *inbox) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.lines) == 0 && b.err == nil && !b.closed {
		b.cond.Wait()
	}
	if b.closed {
		return 0, io.ErrClosedPipe
	}
	if len(b.lines) == 0 {
		return 0, b.err
	}
	n := copy(p, b.lines[0])
	if b.lines[0] = b.lines[0][n:]; len(b.lines[0]) == 0 {
		b.lines[0] = nil
		b.lines = b.lines[1:]
	}
	b.queued -= n
	b.cond.Broadcast()
	return n, nil
}

// Close drops the queued lines and wakes every waiter.
func (b *inbox) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.lines, b.queued = nil, 0
	b.cond.Broadcast()
}
