package contractpin

/*
#include "contractpin.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"sync"
)

// ErrLockClosed is returned by the methods of a Lock after Close.
var ErrLockClosed = errors.New("contractpin: lock is closed")

// LockError is the error of ParseLock for a lock that cannot be used: the
// status (ErrLockSyntax ... ErrLockInvalid), the byte offset of a syntax
// error, the JSON path of the problem and what is wrong there. It unwraps to
// an *Error, so errors.Is(err, ErrLockInvalid) and errors.As(err, &e) with
// e an *Error work as for the other functions.
type LockError struct {
	Kind   Status
	Offset int
	// Path is the JSON path of the problem, such as
	// "servers.acme.tools.search.digest" ("" for the whole document).
	Path string
	// Detail says what is wrong there, in one line.
	Detail string
}

func (e *LockError) Error() string {
	msg := (&Error{Kind: e.Kind, Offset: e.Offset}).Error()
	if e.Detail == "" {
		return msg
	}
	where := e.Path
	if where == "" {
		where = "(document)"
	}
	return msg + ": " + where + ": " + e.Detail
}

// Unwrap returns the *Error (which unwraps to the Status).
func (e *LockError) Unwrap() error { return &Error{Kind: e.Kind, Offset: e.Offset} }

// Lock is a contractpin.lock parsed and validated once, to verify or guard
// any number of tools/list documents against it at run time (the C ABI's
// contractpin_lock). Safe for concurrent use; Close releases it (a finalizer
// does otherwise).
type Lock struct {
	mu      sync.RWMutex
	h       *C.contractpin_lock
	servers []string
}

// ParseLock parses and validates the bytes of a contractpin.lock. A lock
// that cannot be used is a *LockError.
func ParseLock(data []byte) (*Lock, error) {
	if err := CheckVersion(); err != nil {
		return nil, err
	}
	var h *C.contractpin_lock
	var lerr *C.contractpin_lock_error
	var off C.size_t
	st := C.contractpin_lock_parse(bytesPtr(data), C.size_t(len(data)), &h, &lerr, &off)
	runtime.KeepAlive(data)
	if st != C.CONTRACTPIN_STATUS_OK {
		e := &LockError{Kind: Status(st), Offset: -1}
		if hasOffset(st) {
			e.Offset = int(off)
		}
		if lerr != nil {
			var p *C.uint8_t
			var n C.size_t
			if C.contractpin_lock_error_path(lerr, &p, &n) == C.CONTRACTPIN_STATUS_OK {
				e.Path = goString(p, n)
			}
			if C.contractpin_lock_error_detail(lerr, &p, &n) == C.CONTRACTPIN_STATUS_OK {
				e.Detail = goString(p, n)
			}
			C.contractpin_lock_error_free(lerr)
		}
		return nil, e
	}
	l := &Lock{h: h}
	for i := C.size_t(0); i < C.contractpin_lock_server_count(h); i++ {
		var p *C.uint8_t
		var n C.size_t
		C.contractpin_lock_server_name(h, i, &p, &n)
		l.servers = append(l.servers, goString(p, n))
	}
	runtime.SetFinalizer(l, (*Lock).Close)
	return l, nil
}

// Close releases the lock once no call in another goroutine still uses it.
// Calling it again is a no-op; results already obtained stay valid.
func (l *Lock) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.h != nil {
		C.contractpin_lock_free(l.h)
		l.h = nil
		runtime.SetFinalizer(l, nil)
	}
}

// Servers lists the lock's server names (in the lock's order).
func (l *Lock) Servers() []string {
	return append([]string(nil), l.servers...)
}

// Verify is VerifyWithOptions against this lock, without parsing it again.
func (l *Lock) Verify(server string, toolsList []byte, opts VerifyOptions) (*Report, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.h == nil {
		return nil, ErrLockClosed
	}
	cl, err := opts.Limits.c()
	if err != nil {
		return nil, err
	}
	var rep *C.contractpin_report
	var off C.size_t
	st := C.contractpin_lock_verify(l.h,
		stringPtr(server), C.size_t(len(server)),
		bytesPtr(toolsList), C.size_t(len(toolsList)),
		verifyFlags(opts), cl, &rep, &off)
	runtime.KeepAlive(server)
	runtime.KeepAlive(toolsList)
	if st != C.CONTRACTPIN_STATUS_OK {
		return nil, newError(st, off, hasOffset(st))
	}
	return takeReport(rep), nil
}

// VerifyServer is the package-level VerifyServer against this lock, without
// parsing it again (contractpin_lock_verify_server).
func (l *Lock) VerifyServer(server string, initializeResult, toolsList []byte, opts VerifyOptions) (*Report, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.h == nil {
		return nil, ErrLockClosed
	}
	cl, err := opts.Limits.c()
	if err != nil {
		return nil, err
	}
	var rep *C.contractpin_report
	var off C.size_t
	var in C.contractpin_input
	st := C.contractpin_lock_verify_server(l.h,
		stringPtr(server), C.size_t(len(server)),
		bytesPtr(initializeResult), C.size_t(len(initializeResult)),
		bytesPtr(toolsList), C.size_t(len(toolsList)),
		verifyFlags(opts), cl, &rep, &off, &in)
	runtime.KeepAlive(server)
	runtime.KeepAlive(initializeResult)
	runtime.KeepAlive(toolsList)
	if st != C.CONTRACTPIN_STATUS_OK {
		return nil, inputError(st, off, in)
	}
	return takeReport(rep), nil
}

// GuardStatus is why a tool of a page did not pass (contractpin_guard_status).
type GuardStatus uint32

// The guard statuses (stable numbers).
const (
	// GuardDrifted: pinned under this name, but its contract changed.
	GuardDrifted GuardStatus = C.CONTRACTPIN_GUARD_STATUS_DRIFTED
	// GuardUnpinned: not in the lock.
	GuardUnpinned GuardStatus = C.CONTRACTPIN_GUARD_STATUS_UNPINNED
)

// String is "drifted" or "unpinned".
func (s GuardStatus) String() string {
	switch s {
	case GuardDrifted:
		return "drifted"
	case GuardUnpinned:
		return "unpinned"
	}
	return "unknown"
}

// GuardEvent is one tool of a page that did not match its pin.
type GuardEvent struct {
	Tool   string
	Status GuardStatus
	// Changed names, for a drifted tool, the contract members whose digests
	// differ from the pinned field digests, in canonical order.
	Changed []string
	// LiveDigest is the live tool digest, "sha256:" + 64 hex digits.
	LiveDigest string
	// JSON is the event as one line of JSON (no newline): the log format of
	// `contractpin proxy --log`.
	JSON []byte
}

// GuardResult is the decision for one tools/list page: exactly what
// `contractpin proxy` does with it. Its fields are Go copies; it also keeps
// the library's decision for (*Gate).Page until Close (a finalizer releases
// it otherwise), so a client that keeps many results, or large pages,
// calls Close once it has given the result to its Gate.
type GuardResult struct {
	// Result is the result object to hand on in place of the page: in
	// enforce mode the page with every event's tool removed from "tools", in
	// observe mode (or when every tool passed) the page itself. Every other
	// byte is the server's.
	Result []byte
	// Passed lists the tools that matched their pins, in page order.
	Passed []string
	// Events lists the tools that did not, in page order.
	Events []GuardEvent
	// Observe tells whether the page was decided in observe mode.
	Observe  bool
	callable map[string]bool
	// c is the library's decision, kept for (*Gate).Page (which reads the
	// C result, not the fields above) until Close or the finalizer. Shared
	// by copies of the struct.
	c *guardResultHandle
}

// Callable tells whether this page allows tool name: a passing tool of the
// page, and in observe mode a reported one too. A tool that is not on the
// page is never callable. It is the one page's verdict; across a session,
// ask a Gate (which also knows about earlier pages and list changes).
func (r *GuardResult) Callable(name string) bool { return r.callable[name] }

// Close releases the library's copy of the decision, which only
// (*Gate).Page reads: afterwards Page returns ErrResultClosed for it, and
// every field and Callable still work. Calling it again is a no-op; a
// finalizer releases it otherwise. Close waits for a Page in flight.
func (r *GuardResult) Close() {
	if r.c != nil {
		r.c.close()
	}
}

// guardResultHandle owns a contractpin_guard_result. The C result is
// immutable and independent of its lock, so any number of Page calls may
// read it at once (the read lock); close frees it once none does.
type guardResultHandle struct {
	mu sync.RWMutex
	h  *C.contractpin_guard_result
}

func newGuardResultHandle(res *C.contractpin_guard_result) *guardResultHandle {
	c := &guardResultHandle{h: res}
	runtime.SetFinalizer(c, (*guardResultHandle).close)
	return c
}

func (c *guardResultHandle) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h != nil {
		C.contractpin_guard_result_free(c.h)
		c.h = nil
		runtime.SetFinalizer(c, nil)
	}
}

// GuardPage decides one tools/list page against the pins of server: the
// decision of `contractpin proxy`. page is the result object of a tools/list
// response, {"tools": [...], ...}, as the server sent it (not the JSON-RPC
// response). A drifted or unpinned tool is an event; it is removed from
// Result and is not callable, unless observe keeps it (still reported).
//
// A non-nil error means the page must not be used: ErrLockUnknownServer, or
// the *Error (with Offset) of a page the digest core rejects.
func (l *Lock) GuardPage(server string, page []byte, observe bool) (*GuardResult, error) {
	return l.GuardPageWithLimits(server, page, observe, nil)
}

// GuardPageWithLimits is GuardPage with limits on the page (nil means the
// defaults).
func (l *Lock) GuardPageWithLimits(server string, page []byte, observe bool, limits *Limits) (*GuardResult, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.h == nil {
		return nil, ErrLockClosed
	}
	cl, err := limits.c()
	if err != nil {
		return nil, err
	}
	flags := guardFlags(observe)
	var res *C.contractpin_guard_result
	var off C.size_t
	st := C.contractpin_guard_page(l.h,
		stringPtr(server), C.size_t(len(server)),
		bytesPtr(page), C.size_t(len(page)),
		flags, cl, &res, &off)
	runtime.KeepAlive(server)
	runtime.KeepAlive(page)
	if st != C.CONTRACTPIN_STATUS_OK {
		return nil, newError(st, off, hasOffset(st))
	}
	// Kept (not freed here) for (*Gate).Page, until Close or the finalizer.
	c := newGuardResultHandle(res)

	var p *C.uint8_t
	var n C.size_t
	out := &GuardResult{Observe: observe, callable: map[string]bool{}, c: c}
	C.contractpin_guard_result_bytes(res, &p, &n)
	out.Result = []byte(goString(p, n))
	for i := C.size_t(0); i < C.contractpin_guard_result_passed_count(res); i++ {
		C.contractpin_guard_result_passed_name(res, i, &p, &n)
		out.Passed = append(out.Passed, goString(p, n))
	}
	var raw [32]C.uint8_t
	for i := C.size_t(0); i < C.contractpin_guard_result_event_count(res); i++ {
		var status C.contractpin_guard_status
		var changed C.uint32_t
		C.contractpin_guard_result_event(res, i, &p, &n, &status, &changed, &raw[0])
		e := GuardEvent{Tool: goString(p, n), Status: GuardStatus(status), LiveDigest: digestText(&raw)}
		for f := C.uint32_t(0); f < C.CONTRACTPIN_FIELD_COUNT; f++ {
			if changed&(1<<f) != 0 {
				e.Changed = append(e.Changed, C.GoString(C.contractpin_field_name(f)))
			}
		}
		C.contractpin_guard_result_event_json(res, i, &p, &n)
		e.JSON = []byte(goString(p, n))
		out.Events = append(out.Events, e)
	}
	// The library decides what is callable; every name of the page is asked.
	names := append([]string(nil), out.Passed...)
	for _, e := range out.Events {
		names = append(names, e.Tool)
	}
	for _, name := range names {
		if C.contractpin_guard_result_callable(res, stringPtr(name), C.size_t(len(name))) == 1 {
			out.callable[name] = true
		}
		runtime.KeepAlive(name)
	}
	return out, nil
}

// InstructionsStatus is how the server's instructions compare with the
// lock's instructions_digest (contractpin_instructions_status).
type InstructionsStatus uint32

// The instructions statuses (stable numbers; 0 to 3 as ToolStatus).
const (
	// InstructionsUnchanged: pinned and live with the same digest.
	InstructionsUnchanged InstructionsStatus = C.CONTRACTPIN_INSTRUCTIONS_STATUS_UNCHANGED
	// InstructionsDrifted: pinned, and the live ones differ (or are not a string).
	InstructionsDrifted InstructionsStatus = C.CONTRACTPIN_INSTRUCTIONS_STATUS_DRIFTED
	// InstructionsAdded: live (or not a string), none pinned.
	InstructionsAdded InstructionsStatus = C.CONTRACTPIN_INSTRUCTIONS_STATUS_ADDED
	// InstructionsRemoved: pinned, none live (absent or null).
	InstructionsRemoved InstructionsStatus = C.CONTRACTPIN_INSTRUCTIONS_STATUS_REMOVED
	// InstructionsNone: neither the lock nor the result has instructions.
	InstructionsNone InstructionsStatus = C.CONTRACTPIN_INSTRUCTIONS_STATUS_NONE
	// InstructionsNotChecked: not compared (a Report of Verify, or of
	// VerifyServer with IgnoreInstructions). The guard never gives it.
	InstructionsNotChecked InstructionsStatus = C.CONTRACTPIN_INSTRUCTIONS_STATUS_NOT_CHECKED
)

// String is "unchanged", "drifted", "added", "removed", "none" or
// "not-checked".
func (s InstructionsStatus) String() string {
	switch s {
	case InstructionsUnchanged:
		return "unchanged"
	case InstructionsDrifted:
		return "drifted"
	case InstructionsAdded:
		return "added"
	case InstructionsRemoved:
		return "removed"
	case InstructionsNone:
		return "none"
	case InstructionsNotChecked:
		return "not-checked"
	}
	return "unknown"
}

// InstructionsResult is the decision on the instructions of one handshake
// result: exactly what `contractpin proxy` does with them.
type InstructionsResult struct {
	Status InstructionsStatus
	// LiveDigest is the live instructions digest, "sha256:" + 64 hex
	// digits; "" when there is none (removed, none, or not a string).
	LiveDigest string
	// Removed tells whether the instructions were cut out of Result
	// (drifted or added, in enforce mode).
	Removed bool
	// Result is the result object to hand on: the server's bytes, without
	// the instructions member when Removed.
	Result []byte
	// JSON is the event as one line of JSON (no newline), the format of
	// `contractpin proxy --log` without "at"; nil when the instructions
	// match (or neither side has any).
	JSON []byte
}

// GuardInstructions decides the instructions of one handshake result
// against the lock's instructions_digest for server: the decision of
// `contractpin proxy`. result is the result object of the initialize (or
// server/discover) response as the server sent it (not the JSON-RPC
// response). Drifted or added instructions are cut out of Result unless
// observe keeps them (still reported); removed ones are only reported.
//
// A non-nil error means the result must not be used: ErrLockUnknownServer,
// or the *Error (with Offset) of a result that is not a JSON object.
func (l *Lock) GuardInstructions(server string, result []byte, observe bool) (*InstructionsResult, error) {
	return l.GuardInstructionsWithLimits(server, result, observe, nil)
}

// GuardInstructionsWithLimits is GuardInstructions with limits on the result
// (nil means the defaults).
func (l *Lock) GuardInstructionsWithLimits(server string, result []byte, observe bool, limits *Limits) (*InstructionsResult, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.h == nil {
		return nil, ErrLockClosed
	}
	cl, err := limits.c()
	if err != nil {
		return nil, err
	}
	flags := guardFlags(observe)
	var res *C.contractpin_guard_instructions_result
	var off C.size_t
	st := C.contractpin_guard_instructions(l.h,
		stringPtr(server), C.size_t(len(server)),
		bytesPtr(result), C.size_t(len(result)),
		flags, cl, &res, &off)
	runtime.KeepAlive(server)
	runtime.KeepAlive(result)
	if st != C.CONTRACTPIN_STATUS_OK {
		return nil, newError(st, off, hasOffset(st))
	}
	defer C.contractpin_guard_instructions_result_free(res)

	var status C.contractpin_instructions_status
	var hasLive, removed C.int32_t
	var raw [32]C.uint8_t
	C.contractpin_guard_instructions_result_verdict(res, &status, &hasLive, &raw[0], &removed)
	out := &InstructionsResult{Status: InstructionsStatus(status), Removed: removed == 1}
	if hasLive == 1 {
		out.LiveDigest = digestText(&raw)
	}
	var p *C.uint8_t
	var n C.size_t
	C.contractpin_guard_instructions_result_bytes(res, &p, &n)
	out.Result = []byte(goString(p, n))
	if C.contractpin_guard_instructions_result_event_json(res, &p, &n) == C.CONTRACTPIN_STATUS_OK {
		out.JSON = []byte(goString(p, n))
	}
	return out, nil
}

// guardFlags is the flags argument of the guard functions.
func guardFlags(observe bool) C.uint32_t {
	if observe {
		return C.CONTRACTPIN_GUARD_OBSERVE
	}
	return 0
}
