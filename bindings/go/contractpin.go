package contractpin

/*
#include <stdlib.h>
#include "contractpin.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"runtime"
)

// Limits bounds the work done on untrusted input. The zero value is not
// useful: start from DefaultLimits().
//
// MaxInput and MaxTools must not be negative (nor above what a C size_t
// holds): a call given such limits returns an error that matches
// ErrInvalidArgument (errors.Is) and calls nothing.
type Limits struct {
	// MaxDepth is the deepest nesting of arrays and objects (default 256).
	MaxDepth uint32
	// MaxInput is the longest input in bytes (default 64 MiB).
	MaxInput int
	// MaxTools is the most tools in one tools/list (default 100000).
	MaxTools int
}

// DefaultLimits returns the library's default limits.
func DefaultLimits() Limits {
	l := C.contractpin_limits_default()
	return Limits{MaxDepth: uint32(l.max_depth), MaxInput: int(l.max_input), MaxTools: int(l.max_tools)}
}

// c is the contractpin_limits for l (nil, the defaults, for nil), or an
// error for a value the C type cannot hold: converting it would wrap (a
// negative MaxInput would become SIZE_MAX, no limit at all).
func (l *Limits) c() (*C.contractpin_limits, error) {
	if l == nil {
		return nil, nil
	}
	maxInput, err := sizeT("MaxInput", l.MaxInput)
	if err != nil {
		return nil, err
	}
	maxTools, err := sizeT("MaxTools", l.MaxTools)
	if err != nil {
		return nil, err
	}
	return &C.contractpin_limits{
		max_depth: C.uint32_t(l.MaxDepth),
		max_input: maxInput,
		max_tools: maxTools,
	}, nil
}

// sizeMax is SIZE_MAX, the largest C size_t.
const sizeMax = uint64(^C.size_t(0))

// sizeT converts the Limits field named field to a C size_t, refusing a
// value that does not fit rather than wrapping it.
func sizeT(field string, v int) (C.size_t, error) {
	// The second test is for a platform whose int is wider than its size_t.
	if v < 0 || uint64(v) > sizeMax {
		return 0, &limitsError{field: field, value: v}
	}
	return C.size_t(v), nil
}

// limitsError is the error for a Limits field out of range. It unwraps to
// an *Error of kind ErrInvalidArgument, what the C library returns for an
// invalid argument.
type limitsError struct {
	field string
	value int
}

func (e *limitsError) Error() string {
	return fmt.Sprintf("contractpin: invalid Limits: %s is %d, not between 0 and %d", e.field, e.value, sizeMax)
}

func (e *limitsError) Unwrap() error { return &Error{Kind: ErrInvalidArgument, Offset: -1} }

// bufferCall runs a C function that writes into a caller buffer, growing the
// buffer once if the first guess was too small.
func bufferCall(guess int, call func(out *C.uint8_t, cap C.size_t, outLen *C.size_t, off *C.size_t) C.contractpin_status) ([]byte, error) {
	buf := make([]byte, guess)
	for {
		var n, off C.size_t
		st := call(bytesPtr(buf), C.size_t(len(buf)), &n, &off)
		switch {
		case st == C.CONTRACTPIN_STATUS_OK:
			return buf[:n], nil
		case st == C.CONTRACTPIN_STATUS_OUTPUT_TOO_SMALL && int(n) > len(buf):
			buf = make([]byte, int(n))
		default:
			return nil, newError(st, off, hasOffset(st))
		}
	}
}

// Canonicalize returns the RFC 8785 canonical form (contractpin-canonical-json/1)
// of any JSON document.
func Canonicalize(doc []byte) ([]byte, error) {
	return CanonicalizeWithLimits(doc, nil)
}

// CanonicalizeWithLimits is Canonicalize with explicit limits (nil means the defaults).
func CanonicalizeWithLimits(doc []byte, limits *Limits) ([]byte, error) {
	if err := CheckVersion(); err != nil {
		return nil, err
	}
	cl, err := limits.c()
	if err != nil {
		return nil, err
	}
	out, err := bufferCall(len(doc)+64, func(out *C.uint8_t, cap C.size_t, n *C.size_t, off *C.size_t) C.contractpin_status {
		return C.contractpin_canonicalize_with_limits(bytesPtr(doc), C.size_t(len(doc)), cl, out, cap, n, off)
	})
	runtime.KeepAlive(doc)
	return out, err
}

// ToolContract returns the canonical bytes of one tool's contract (spec
// section 2): exactly the bytes the tool digest hashes.
func ToolContract(tool []byte) ([]byte, error) {
	if err := CheckVersion(); err != nil {
		return nil, err
	}
	out, err := bufferCall(len(tool)+64, func(out *C.uint8_t, cap C.size_t, n *C.size_t, off *C.size_t) C.contractpin_status {
		return C.contractpin_tool_contract(bytesPtr(tool), C.size_t(len(tool)), out, cap, n, off)
	})
	runtime.KeepAlive(tool)
	return out, err
}

// ToolDigest returns the tool digest of one tool object, "sha256:" followed
// by 64 lowercase hex digits.
func ToolDigest(tool []byte) (string, error) {
	if err := CheckVersion(); err != nil {
		return "", err
	}
	var text [C.CONTRACTPIN_DIGEST_TEXT_SIZE]C.char
	var off C.size_t
	st := C.contractpin_tool_digest(bytesPtr(tool), C.size_t(len(tool)), &text[0], &off)
	runtime.KeepAlive(tool)
	if st != C.CONTRACTPIN_STATUS_OK {
		return "", newError(st, off, hasOffset(st))
	}
	return C.GoStringN(&text[0], C.CONTRACTPIN_DIGEST_TEXT_LEN), nil
}

// Tool is one tool of a digested tools/list.
type Tool struct {
	// Name is the tool name.
	Name string `json:"-"`
	// Digest is the tool digest, "sha256:<hex>".
	Digest string `json:"digest"`
	// Fields maps each contract member ("description", "inputSchema",
	// "name", and "outputSchema"/"annotations" when present) to its digest.
	Fields map[string]string `json:"fields"`
}

// Server holds the digests of a whole tools/list. Its JSON form is the
// server entry of a lock file: digest, tool_count and tools.
type Server struct {
	// Digest is the server digest, "sha256:<hex>".
	Digest string
	// Tools are in canonical order (by UTF-16 code units of the name).
	Tools []Tool
}

// Tool returns the tool with this name, if any.
func (s *Server) Tool(name string) (Tool, bool) {
	for _, t := range s.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// MarshalJSON writes the lock server entry shape:
// {"digest": ..., "tool_count": n, "tools": {name: {"digest", "fields"}}}.
func (s *Server) MarshalJSON() ([]byte, error) {
	tools := make(map[string]Tool, len(s.Tools))
	for _, t := range s.Tools {
		tools[t.Name] = t
	}
	return json.Marshal(struct {
		Digest    string          `json:"digest"`
		ToolCount int             `json:"tool_count"`
		Tools     map[string]Tool `json:"tools"`
	}{s.Digest, len(s.Tools), tools})
}

// DigestToolsList digests a tools/list in any accepted shape (result object,
// JSON-RPC response, bare array of tools, or array of pages).
func DigestToolsList(list []byte) (*Server, error) {
	return DigestToolsListWithLimits(list, nil)
}

// DigestToolsListWithLimits is DigestToolsList with explicit limits (nil
// means the defaults).
func DigestToolsListWithLimits(list []byte, limits *Limits) (*Server, error) {
	if err := CheckVersion(); err != nil {
		return nil, err
	}
	cl, err := limits.c()
	if err != nil {
		return nil, err
	}
	var srv *C.contractpin_server
	var off C.size_t
	st := C.contractpin_digest_tools_list_with_limits(bytesPtr(list), C.size_t(len(list)), cl, &srv, &off)
	runtime.KeepAlive(list)
	if st != C.CONTRACTPIN_STATUS_OK {
		return nil, newError(st, off, hasOffset(st))
	}
	defer C.contractpin_server_free(srv)

	var raw [32]C.uint8_t
	C.contractpin_server_digest(srv, &raw[0])
	out := &Server{Digest: digestText(&raw)}
	count := int(C.contractpin_server_tool_count(srv))
	out.Tools = make([]Tool, count)
	for i := 0; i < count; i++ {
		idx := C.size_t(i)
		var name *C.uint8_t
		var nameLen C.size_t
		C.contractpin_server_tool_name(srv, idx, &name, &nameLen)
		C.contractpin_server_tool_digest(srv, idx, &raw[0])
		t := Tool{Name: goString(name, nameLen), Digest: digestText(&raw), Fields: map[string]string{}}
		for f := C.uint32_t(0); f < C.CONTRACTPIN_FIELD_COUNT; f++ {
			if C.contractpin_server_tool_field_digest(srv, idx, f, &raw[0]) == C.CONTRACTPIN_STATUS_OK {
				t.Fields[C.GoString(C.contractpin_field_name(f))] = digestText(&raw)
			}
		}
		out.Tools[i] = t
	}
	return out, nil
}
