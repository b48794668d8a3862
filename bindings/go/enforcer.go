package contractpin

/*
#include "contractpin.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"sync"
	"unsafe"
)

// ErrEnforcerClosed is returned by the methods of an Enforcer after Close
// (with a Decision whose Action is ActionDrop: pass nothing on).
var ErrEnforcerClosed = errors.New("contractpin: enforcer is closed")

// Action is what to do with a message an Enforcer decided
// (contractpin_action; stable numbers).
type Action uint32

// The actions.
const (
	// ActionDrop: pass nothing on (0: the zero Decision fails closed).
	ActionDrop Action = C.CONTRACTPIN_ACTION_DROP
	// ActionForward: pass the message on as received.
	ActionForward Action = C.CONTRACTPIN_ACTION_FORWARD
	// ActionReplace: pass on Decision.Bytes instead of the message.
	ActionReplace Action = C.CONTRACTPIN_ACTION_REPLACE
)

// String is "forward", "replace" or "drop" ("unknown" for a number the
// package does not know).
func (a Action) String() string {
	switch a {
	case ActionForward:
		return "forward"
	case ActionReplace:
		return "replace"
	case ActionDrop:
		return "drop"
	}
	return "unknown"
}

// EnforcerOptions are the options of `contractpin proxy` for an Enforcer.
// The zero value is the proxy's default: enforce mode, drifted and
// unpinned tools removed from the pages, instructions compared.
type EnforcerOptions struct {
	// Observe reports, never changes or refuses (--mode observe).
	Observe bool
	// Block answers a tools/list whose page has a drifted or unpinned tool
	// with a JSON-RPC error naming them, and a handshake whose instructions
	// drifted with one (--on-drift block), instead of removing them.
	// Enforce mode only: Observe with Block is an error matching
	// ErrInvalidArgument, as the proxy refuses it.
	Block bool
	// IgnoreInstructions does not compare the handshake's instructions
	// with the pin (--ignore-instructions).
	IgnoreInstructions bool
	// Limits applies to each tools page; nil means the defaults.
	Limits *Limits
}

// flags is the flags argument of contractpin_enforcer_new.
func (o EnforcerOptions) flags() C.uint32_t {
	var f C.uint32_t
	if o.Observe {
		f |= C.CONTRACTPIN_GUARD_OBSERVE
	}
	if o.Block {
		f |= C.CONTRACTPIN_ENFORCER_BLOCK
	}
	if o.IgnoreInstructions {
		f |= C.CONTRACTPIN_ENFORCER_IGNORE_INSTRUCTIONS
	}
	return f
}

// Decision is what an Enforcer decided for one message: Go copies of the
// library's decision (which is released before Client or Server returns),
// independent of the enforcer and of the message.
//
// Fail closed: pass on exactly what Forwarded returns, and nothing when
// Client or Server returned an error (the Decision is then ActionDrop with
// nothing else). The zero Decision is ActionDrop.
type Decision struct {
	// Action says what to pass on: the message as received (ActionForward),
	// Bytes instead (ActionReplace), or nothing (ActionDrop).
	Action Action
	// Bytes is the complete JSON-RPC message or batch to pass on instead
	// of the message (no newline): for ActionReplace only, nil otherwise.
	Bytes []byte
	// Reply is the answer to send back to the sender of the message (a
	// refused tools/call's -32602 error, the error for a client message
	// that is not JSON-RPC: a complete JSON-RPC response or batch of them,
	// no newline), or nil when there is none. Only a client message has
	// one.
	Reply []byte
	// Events are the events of the message, in the order they happened,
	// each one canonical JSON object: the line `contractpin proxy --log`
	// writes, without its "at" member (add your own time). Server-controlled
	// text in them (a tool name, a dropped message's head) is JSON-escaped
	// but otherwise as sent: escape it before showing it on a terminal.
	Events [][]byte
}

// Forwarded is what to pass on for msg, the message the decision was made
// for: msg for ActionForward, Bytes for ActionReplace, nil (nothing) for
// ActionDrop and any other action.
func (d Decision) Forwarded(msg []byte) []byte {
	switch d.Action {
	case ActionForward:
		return msg
	case ActionReplace:
		return d.Bytes
	}
	return nil
}

// dropDecision is the Decision returned with an error: pass nothing on.
var dropDecision = Decision{Action: ActionDrop}

// Enforcer is the whole run-time check of `contractpin proxy` for one
// session with one server, for an MCP client that embeds it at its own
// transport (the C ABI's contractpin_enforcer): give it every JSON-RPC
// message the client sends (Client) and every one the server sent
// (Server), as raw bytes, and pass on what the Decision says. It keeps the
// session's state (which responses answer the client's tools/list
// requests, the listing, notifications/tools/list_changed, the handshake),
// so the client refuses exactly the messages the proxy refuses.
//
// Fails closed: on an error from Client or Server pass nothing on.
//
// Safe for concurrent use: a mutex serializes Client and Server, so a
// client that reads and writes on two goroutines gets the messages decided
// one at a time; give them in the order the session sees them. Close
// releases it (a finalizer does otherwise).
type Enforcer struct {
	mu sync.Mutex
	h  *C.contractpin_enforcer
}

// NewEnforcer returns the enforcer of a new session with server (its key
// in the lock): nothing is callable until a listing passed. The server's
// pins are copied, so the lock may be closed afterwards.
//
// A non-nil error means no enforcer: ErrLockUnknownServer for a server the
// lock does not have, ErrInvalidArgument for a name that is not UTF-8,
// Observe with Block, or Limits out of range; ErrLockClosed on a closed
// lock.
func (l *Lock) NewEnforcer(server string, opts EnforcerOptions) (*Enforcer, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.h == nil {
		return nil, ErrLockClosed
	}
	cl, err := opts.Limits.c()
	if err != nil {
		return nil, err
	}
	var h *C.contractpin_enforcer
	st := C.contractpin_enforcer_new(l.h,
		stringPtr(server), C.size_t(len(server)),
		opts.flags(), cl, &h)
	runtime.KeepAlive(server)
	if st != C.CONTRACTPIN_STATUS_OK {
		return nil, newError(st, 0, false)
	}
	e := &Enforcer{h: h}
	runtime.SetFinalizer(e, (*Enforcer).Close)
	return e, nil
}

// Close releases the enforcer once no Client or Server call in another
// goroutine still uses it. Calling it again is a no-op; later calls return
// ErrEnforcerClosed. Decisions already made stay valid.
func (e *Enforcer) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.h != nil {
		C.contractpin_enforcer_free(e.h)
		e.h = nil
		runtime.SetFinalizer(e, nil)
	}
}

// Client decides msg, one JSON-RPC message or batch the client is about
// to send to the server: the exact bytes (a stdio line without its
// newline, an HTTP request body). A tools/call for a tool the latest
// listing did not pass is ActionDrop with a -32602 "Unknown tool" Reply
// (in enforce mode); a message that is not JSON-RPC is dropped and
// answered with -32700 or -32600 (a request by its own id when only a
// limit stopped the parser: nested too deep, too long); a batch can be ActionReplace (the
// elements to send) with a Reply (the answers to the others); every other
// message is ActionForward.
//
// A non-nil error (ErrEnforcerClosed, or an *Error) comes with an
// ActionDrop Decision: send nothing.
func (e *Enforcer) Client(msg []byte) (Decision, error) {
	return e.decide(msg, true)
}

// Server decides msg, one JSON-RPC message or batch the server sent,
// before the client reads it (the same conventions as Client; never a
// Reply). A tools result with drifted or unpinned tools is ActionReplace
// (those tools removed, every other byte kept; with Block a -32603 error
// instead), as is a handshake result with drifted instructions; a message
// that is not JSON-RPC (or that the strict parser refuses) is ActionDrop.
//
// A non-nil error (ErrEnforcerClosed, or an *Error) comes with an
// ActionDrop Decision: the client must not read the message.
func (e *Enforcer) Server(msg []byte) (Decision, error) {
	return e.decide(msg, false)
}

// decide runs contractpin_enforcer_client (client) or _server under the
// mutex, and copies the decision out.
func (e *Enforcer) decide(msg []byte, client bool) (Decision, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.h == nil {
		return dropDecision, ErrEnforcerClosed
	}
	var d *C.contractpin_decision
	var st C.contractpin_status
	if client {
		st = C.contractpin_enforcer_client(e.h, bytesPtr(msg), C.size_t(len(msg)), &d)
	} else {
		st = C.contractpin_enforcer_server(e.h, bytesPtr(msg), C.size_t(len(msg)), &d)
	}
	runtime.KeepAlive(msg)
	if st != C.CONTRACTPIN_STATUS_OK {
		return dropDecision, newError(st, 0, false)
	}
	defer C.contractpin_decision_free(d)
	return takeDecision(d)
}

// Summary returns the "skipped-more" events of the session: how many more
// messages of each kind (stray output, refused messages) were dropped
// without a "skipped" event of their own since the last Summary (only the
// first 100 of each kind in a session get one), one event per kind with a
// count, none when nothing went unreported; the counts start from zero
// again. `contractpin proxy` logs one at most once a minute while such
// messages keep coming, and one at the end of the session: call it as
// often as you log, and once when the session ends.
func (e *Enforcer) Summary() ([][]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.h == nil {
		return nil, ErrEnforcerClosed
	}
	var d *C.contractpin_decision
	if st := C.contractpin_enforcer_summary(e.h, &d); st != C.CONTRACTPIN_STATUS_OK {
		return nil, newError(st, 0, false)
	}
	defer C.contractpin_decision_free(d)
	out, err := takeDecision(d)
	return out.Events, err
}

// takeDecision copies a decision out of the library (the caller frees it).
// Any accessor failing where it must succeed is an error (fail closed).
func takeDecision(d *C.contractpin_decision) (Decision, error) {
	out := Decision{Action: Action(C.contractpin_decision_action(d))}
	var p *C.uint8_t
	var n C.size_t
	switch out.Action {
	case ActionForward, ActionDrop:
	case ActionReplace:
		if st := C.contractpin_decision_bytes(d, &p, &n); st != C.CONTRACTPIN_STATUS_OK {
			return dropDecision, newError(st, 0, false)
		}
		out.Bytes = copyBytes(p, n)
	default:
		// An action this package does not know: pass nothing on.
		return dropDecision, newError(C.CONTRACTPIN_STATUS_INVALID_ARGUMENT, 0, false)
	}
	switch st := C.contractpin_decision_reply(d, &p, &n); st {
	case C.CONTRACTPIN_STATUS_OK:
		out.Reply = copyBytes(p, n)
	case C.CONTRACTPIN_STATUS_NOT_FOUND:
	default:
		return dropDecision, newError(st, 0, false)
	}
	count := C.contractpin_decision_event_count(d)
	if count > 0 {
		out.Events = make([][]byte, 0, int(count))
	}
	for i := C.size_t(0); i < count; i++ {
		if st := C.contractpin_decision_event_json(d, i, &p, &n); st != C.CONTRACTPIN_STATUS_OK {
			return dropDecision, newError(st, 0, false)
		}
		out.Events = append(out.Events, copyBytes(p, n))
	}
	return out, nil
}

// copyBytes copies a (pointer, length) span owned by the library into a
// new, non-nil slice.
func copyBytes(p *C.uint8_t, n C.size_t) []byte {
	b := make([]byte, int(n))
	if n > 0 {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n)))
	}
	return b
}
