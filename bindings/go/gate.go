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
// Close.
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
	// PageUnmatched: a tools result that answers no tools/list request of
	// the client's; it can only take tools away.
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
	// RefusalNoListing: no page has been given yet; list the tools first.
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
//   - PageFirst (the answer to tools/list without a cursor): a new listing,
//     whose callable tools are this page's (result.Callable);
//   - PageNext (with a cursor): adds this page's callable tools to the
//     current listing; after ListChanged or a refused page it adds nothing;
//   - PageUnmatched (a tools result the client did not ask for): its
//     reported tools become uncallable; it adds nothing.
//
// A nil result, or one not made by GuardPage, is an *Error matching
// ErrNullArgument; a result after its Close is ErrResultClosed; a kind
// other than the three an *Error matching ErrInvalidArgument. The gate is
// unchanged on error. The result may be closed afterwards.
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
// matching ErrInvalidArgument, and the gate is unchanged.
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
// ErrGateClosed. Fail closed: send the call only on nil. Names are exact
// (no case folding, no trimming).
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
