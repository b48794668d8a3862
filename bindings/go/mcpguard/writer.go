package mcpguard

import (
	"bytes"
	"io"
	"sync"
)

// writer is the end the SDK writes to: each line it writes goes to the
// server as the enforcer decides, and the enforcer's reply to the SDK.
type writer struct {
	g   *guard
	to  io.WriteCloser
	mu  sync.Mutex // serializes Write
	buf []byte     // the start of a line not complete yet
	err error      // once set, every Write fails with it
}

// Write decides each complete line of p and keeps the rest for the next
// Write. A line over the limit or an error of the enforcer fails this Write
// and every later one (the SDK then closes the session).
func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.lines(p)
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// lines decides each complete line of w.buf+p and keeps the rest in w.buf.
func (w *writer) lines(p []byte) error {
	max := w.g.opts.maxLine()
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(w.buf)+len(p) > max {
				return ErrLineTooLong
			}
			w.buf = append(w.buf, p...)
			return nil
		}
		if len(w.buf)+i > max {
			return ErrLineTooLong
		}
		line := p[:i]
		if len(w.buf) > 0 {
			line, w.buf = append(w.buf, line...), nil
		}
		if err := w.line(bytes.TrimSuffix(line, []byte{'\r'})); err != nil {
			return err
		}
		p = p[i+1:]
	}
}

// line decides one line of the SDK: the reply (if any) is queued for the
// SDK without waiting for it to read, then what passes goes to the server.
func (w *writer) line(line []byte) error {
	if blank(line) {
		return nil
	}
	d, err := w.g.decide(line, true)
	if err != nil {
		return err
	}
	if d.Reply != nil {
		w.g.in.put(frame(d.Reply), false)
	}
	if out := d.Forwarded(line); out != nil {
		if _, err := w.to.Write(frame(out)); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the server's input, without waiting for a Write in flight
// (closing unblocks it).
func (w *writer) Close() error { return w.to.Close() }
