package contractpin

/*
#include "contractpin.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// ErrGateClosed is returned by the methods of a Gate after Close.
var ErrGateClosed = errors.New("contractpin: gate is closed")

// ErrResultClosed is returned by (*Gate).Page for a GuardResult after its
// Close; the gate then refuses every call until a new listing (fail
// closed).
var ErrResultClosed = errors.New("contractpin: guard result is closed")

// PageKind says how a checked tools/list page relates to the session's
// listing (the C ABI's CONTRACTPIN_PAGE_*; stable numbers).
type PageKind uint32

// The page kinds.
const (
	// PageFirst: the answer to the client's tools/list request without a
	// cursor; it starts a new listing.
	PageFirst PageKind = C.CONTRACTPIN_PAGE_FIRST
	// PageNext: the answer to a tools/list request with a cursor, a later
	// page of the current listing.
	PageNext PageKind = C.CONTRACTPIN_PAGE_NEXT
	// PageUnmatched: any other response whose result is an object with a
	// tools member, one that answers none of the client's tools/list
	// requests (an unrequested id, or the answer to initialize,
	// resources/list or any other request); it can only take tools away.
	PageUnmatched PageKind = C.CONTRACTPIN_PAGE_UNMATCHED
)

// Refusal is the verdict of (*Gate).Check (contractpin_refusal): why a
// tools/call must not be sent, carried by a *CallRefusedError. The numbers
// are stable.
//
//	var refused *contractpin.CallRefusedError
//	if errors.As(err, &refused) && refused.Refusal == contractpin.RefusalDrifted { ... }
type Refusal uint32

// The refusals. RefusalCallable lets the call through; Check never returns
// it as an error.
const (
	// RefusalCallable: the tool passed on the current listing.
	RefusalCallable Refusal = C.CONTRACTPIN_REFUSAL_CALLABLE
	// RefusalNoListing: no listing has started yet (no PageFirst page
	// given); list the tools first.
	RefusalNoListing Refusal = C.CONTRACTPIN_REFUSAL_NO_LISTING
	// RefusalListChanged: notifications/tools/list_changed came after the
	// latest listing.
	RefusalListChanged Refusal = C.CONTRACTPIN_REFUSAL_LIST_CHANGED
	// RefusalDrifted: the latest listing reported the tool as drifted.
	RefusalDrifted Refusal = C.CONTRACTPIN_REFUSAL_DRIFTED
	// RefusalUnpinned: the latest listing reported the tool as not pinned.
	RefusalUnpinned Refusal = C.CONTRACTPIN_REFUSAL_UNPINNED
	// RefusalNotListed: the latest listing did not hold the tool, or was
	// refused.
	RefusalNotListed Refusal = C.CONTRACTPIN_REFUSAL_NOT_LISTED
	// RefusalNoName: the tools/call request names no tool. The gate never
	// returns it; it is for the client's own check of a request.
	RefusalNoName Refusal = C.CONTRACTPIN_REFUSAL_NO_NAME
	// RefusalInvalidArgument: the tool name is not UTF-8.
	RefusalInvalidArgument Refusal = C.CONTRACTPIN_REFUSAL_INVALID_ARGUMENT
)

// Name is the stable word, such as "drifted" (the words of `contractpin
// proxy --log`); "unknown-refusal" for a number the library does not know.
func (r Refusal) Name() string {
	return C.GoString(C.contractpin_refusal_name(C.uint32_t(r)))
}

// Message is the one-line English reason `contractpin proxy` gives its
// client after "contractpin proxy: ".
func (r Refusal) Message() string {
	return C.GoString(C.contractpin_refusal_message(C.uint32_t(r)))
}

// String returns the stable name.
func (r Refusal) String() string { return r.Name() }

// CallRefusedError is the error of (*Gate).Check for a tools/call that
// must not be sent.
type CallRefusedError struct {
	// Tool is the name the call was for, as given to Check (the server's
	// or the model's text: quote it when showing it).
	Tool string
	// Refusal says why; never RefusalCallable.
	Refusal Refusal
}

func (e *CallRefusedError) Error() string {
	return fmt.Sprintf("contractpin: tools/call of %q refused: %s: %s", e.Tool, e.Refusal.Name(), e.Refusal.Message())
}

// Gate is which tools an MCP client may call right now, across the pages,
// notifications and refusals of one session (the C ABI's contractpin_gate):
// the state `contractpin proxy` keeps per session, so a client that embeds
// the guard refuses exactly the calls the proxy refuses. Keep one per
// session and feed it what the session sees: Page after each page passed
// on, Refused for each page not passed on, ListChanged for each
// notifications/tools/list_changed; ask Check before every tools/call.
//
// The verdicts are the proxy's in either mode: a page decided in observe
// mode (GuardPage with observe) keeps its drifted and unpinned tools, but
// Check still refuses them. Observe mode is the client's behaviour, as
// with `contractpin proxy --mode observe`: it sends a refused call anyway
// and logs the refusal's word (the proxy logs call-unverified with it).
//
// Fails closed: every error of Page and Refused on an open gate leaves it
// refusing every call until a new listing (a new PageFirst page).
//
// Safe for concurrent use (calls are serialized; Checks may run together);
// Close releases it (a finalizer does otherwise).
type Gate struct {
	mu sync.RWMutex
	h  *C.contractpin_gate
}

// NewGate returns the gate of a new session: nothing is callable until the
// first page of a listing is given.
func NewGate() (*Gate, error) {
	if err := CheckVersion(); err != nil {
		return nil, err
	}
	var h *C.contractpin_gate
	if st := C.contractpin_gate_new(&h); st != C.CONTRACTPIN_STATUS_OK {
		return nil, newError(st, 0, false)
	}
	g := &Gate{h: h}
	runtime.SetFinalizer(g, (*Gate).Close)
	return g, nil
}

// Close releases the gate once no call in another goroutine still uses it.
// Calling it again is a no-op; later calls return ErrGateClosed (Check
// too, which refuses the call).
func (g *Gate) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.h != nil {
		C.contractpin_gate_free(g.h)
		g.h = nil
		runtime.SetFinalizer(g, nil)
	}
}

// Page gives the gate the decision of one page the client passed on
// (result, from GuardPage), of kind:
//
//   - PageFirst (the answer to the client's tools/list without a cursor):
//     a new listing, whose callable tools are this page's passing tools;
//   - PageNext (the answer to one with a cursor): adds this page's passing
//     tools to the current listing; after ListChanged or a refused page it
//     adds nothing;
//   - PageUnmatched (any other response whose result is an object with a
//     tools member: an unrequested id, the answer to initialize,
//     resources/list or any other request): its reported tools become
//     uncallable; it adds nothing.
//
// The gate takes the page's passing tools in either mode: a result decided
// in observe mode gives the same verdicts as in enforce mode (its drifted
// and unpinned tools are refused by Check, though result.Callable says
// true for them); an observe-mode client sends a refused call anyway and
// logs the refusal.
//
// Fails closed. A nil result, or one not made by GuardPage, is an *Error
// matching ErrNullArgument; a result after its Close is ErrResultClosed
// (both checked before the kind); a kind other than the three is an
// *Error matching ErrInvalidArgument. Each of them leaves the gate as
// Refused(kind) does (an unknown kind as PageFirst): nothing callable until
// a new listing. Do not pass that page on. On a closed gate it is
// ErrGateClosed. The result may be closed afterwards.
func (g *Gate) Page(result *GuardResult, kind PageKind) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.h == nil {
		return ErrGateClosed
	}
	var c *guardResultHandle
	if result != nil {
		c = result.c
	}
	var res *C.contractpin_guard_result // NULL: the library's null-argument
	if c != nil {
		c.mu.RLock()
		defer c.mu.RUnlock()
		if c.h == nil {
			// Fail closed, as the library does for a NULL result.
			C.contractpin_gate_refused(g.h, C.uint32_t(kind))
			return ErrResultClosed
		}
		res = c.h
	}
	st := C.contractpin_gate_page(g.h, res, C.uint32_t(kind))
	runtime.KeepAlive(c)
	if st != C.CONTRACTPIN_STATUS_OK {
		return newError(st, 0, false)
	}
	return nil
}

// Refused tells the gate that a page of kind was not passed on (GuardPage
// rejected it, the client blocked the listing, or reading it failed):
// nothing is callable until a new listing, and the refused listing's later
// cursor pages add nothing. A kind other than the three is an *Error
// matching ErrInvalidArgument, and is refused as PageFirst (fail closed).
func (g *Gate) Refused(kind PageKind) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.h == nil {
		return ErrGateClosed
	}
	if st := C.contractpin_gate_refused(g.h, C.uint32_t(kind)); st != C.CONTRACTPIN_STATUS_OK {
		return newError(st, 0, false)
	}
	return nil
}

// ListChanged tells the gate that the server sent
// notifications/tools/list_changed: nothing is callable until the tools
// are listed again (a new PageFirst).
func (g *Gate) ListChanged() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.h == nil {
		return ErrGateClosed
	}
	if st := C.contractpin_gate_list_changed(g.h); st != C.CONTRACTPIN_STATUS_OK {
		return newError(st, 0, false)
	}
	return nil
}

// Check tells whether the client may send a tools/call for tool name now:
// nil for a tool that passed on the current listing, a *CallRefusedError
// otherwise (a name that is not UTF-8 is RefusalInvalidArgument), or
// ErrGateClosed. Fail closed: send the call only on nil (in observe mode,
// send it anyway and log the refusal). Names are exact (no case folding,
// no trimming, no cutting at a NUL byte): pass the tools/call request's
// name as decoded from its JSON, whole (a JSON name may hold \u0000, which
// a Go string keeps).
func (g *Gate) Check(name string) error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.h == nil {
		return ErrGateClosed
	}
	r := C.contractpin_gate_check(g.h, stringPtr(name), C.size_t(len(name)))
	runtime.KeepAlive(name)
	if Refusal(r) == RefusalCallable {
		return nil
	}
	return &CallRefusedError{Tool: name, Refusal: Refusal(r)}
}
