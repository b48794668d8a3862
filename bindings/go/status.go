package contractpin

/*
#include "contractpin.h"
*/
import "C"

import "fmt"

// Status is a contractpin_status code of the C ABI. The numbers are stable
// and never reused. Every non-zero Status is also an error, so the Err*
// constants below are sentinels for errors.Is:
//
//	if errors.Is(err, contractpin.ErrDuplicateKey) { ... }
type Status uint32

// StatusOK is success; it is never returned as an error.
const StatusOK Status = 0

// The error statuses: 1-15 and 32-38 reject an input document (an *Error
// then carries the byte offset), 64-69 reject a lock file, 100 and above
// report a misuse of the API (or, for ErrPanic, a bug in the library).
const (
	ErrUnexpectedEnd                   Status = 1   // unexpected-end
	ErrUnexpectedByte                  Status = 2   // unexpected-byte
	ErrInvalidUTF8                     Status = 3   // invalid-utf8
	ErrByteOrderMark                   Status = 4   // byte-order-mark
	ErrControlCharacter                Status = 5   // control-character
	ErrInvalidEscape                   Status = 6   // invalid-escape
	ErrLoneSurrogate                   Status = 7   // lone-surrogate
	ErrInvalidNumber                   Status = 8   // invalid-number
	ErrNumberOutOfRange                Status = 9   // number-out-of-range
	ErrDuplicateKey                    Status = 10  // duplicate-key
	ErrDepthLimit                      Status = 11  // depth-limit
	ErrSizeLimit                       Status = 12  // size-limit
	ErrTrailingData                    Status = 13  // trailing-data
	ErrScratchTooSmall                 Status = 14  // scratch-too-small
	ErrOutputTooSmall                  Status = 15  // output-too-small
	ErrNotToolsList                    Status = 32  // not-tools-list
	ErrToolNotObject                   Status = 33  // tool-not-object
	ErrNameNotString                   Status = 34  // name-not-string
	ErrDuplicateToolName               Status = 35  // duplicate-tool-name
	ErrJSONRPCError                    Status = 36  // json-rpc-error
	ErrToolLimit                       Status = 37  // tool-limit
	ErrCaseVariantKey                  Status = 38  // case-variant-key
	ErrLockSyntax                      Status = 64  // lock-syntax
	ErrLockUnsupportedVersion          Status = 65  // lock-unsupported-version
	ErrLockUnsupportedAlgorithm        Status = 66  // lock-unsupported-algorithm
	ErrLockUnsupportedCanonicalization Status = 67  // lock-unsupported-canonicalization
	ErrLockInvalid                     Status = 68  // lock-invalid
	ErrLockUnknownServer               Status = 69  // lock-unknown-server
	ErrNullArgument                    Status = 100 // null-argument
	ErrInvalidArgument                 Status = 101 // invalid-argument
	ErrPanic                           Status = 102 // panic
	ErrIndexOutOfRange                 Status = 103 // index-out-of-range
	ErrFieldAbsent                     Status = 104 // field-absent
	ErrNotFound                        Status = 105 // not-found
)

// allStatuses lists every error status, in numeric order.
var allStatuses = []Status{
	ErrUnexpectedEnd,
	ErrUnexpectedByte,
	ErrInvalidUTF8,
	ErrByteOrderMark,
	ErrControlCharacter,
	ErrInvalidEscape,
	ErrLoneSurrogate,
	ErrInvalidNumber,
	ErrNumberOutOfRange,
	ErrDuplicateKey,
	ErrDepthLimit,
	ErrSizeLimit,
	ErrTrailingData,
	ErrScratchTooSmall,
	ErrOutputTooSmall,
	ErrNotToolsList,
	ErrToolNotObject,
	ErrNameNotString,
	ErrDuplicateToolName,
	ErrJSONRPCError,
	ErrToolLimit,
	ErrCaseVariantKey,
	ErrLockSyntax,
	ErrLockUnsupportedVersion,
	ErrLockUnsupportedAlgorithm,
	ErrLockUnsupportedCanonicalization,
	ErrLockInvalid,
	ErrLockUnknownServer,
	ErrNullArgument,
	ErrInvalidArgument,
	ErrPanic,
	ErrIndexOutOfRange,
	ErrFieldAbsent,
	ErrNotFound,
}

// Name is the stable kebab-case name, such as "duplicate-key".
func (s Status) Name() string {
	return C.GoString(C.contractpin_status_name(C.uint32_t(s)))
}

// Message is a one-line English explanation.
func (s Status) Message() string {
	return C.GoString(C.contractpin_status_message(C.uint32_t(s)))
}

// String returns the stable name.
func (s Status) String() string { return s.Name() }

// Error makes a Status usable as an error and as an errors.Is sentinel.
func (s Status) Error() string { return "contractpin: " + s.Name() + ": " + s.Message() }

// Error is the error returned by this package: the status, and for input
// errors the byte offset where the problem was found.
type Error struct {
	// Kind is the status; compare it with the Err* constants.
	Kind Status
	// Offset is the byte offset in the input of an input error (statuses
	// 1-13 and 32-38 in the document, 64 in the lock), or -1.
	Offset int
	// Input names the input Offset is into, for the calls that take
	// several documents (VerifyServer): "lock", "tools/list" or
	// "initialize result"; "" otherwise.
	Input string
}

func (e *Error) Error() string {
	if e.Offset >= 0 {
		in := ""
		if e.Input != "" {
			in = " of the " + e.Input
		}
		return fmt.Sprintf("contractpin: %s at byte %d%s: %s", e.Kind.Name(), e.Offset, in, e.Kind.Message())
	}
	return "contractpin: " + e.Kind.Name() + ": " + e.Kind.Message()
}

// Unwrap returns the Status, so errors.Is(err, ErrDuplicateKey) works.
func (e *Error) Unwrap() error { return e.Kind }

// newError builds the *Error for a failed call; offset is meaningful only
// when hasOffset.
func newError(st C.contractpin_status, offset C.size_t, hasOffset bool) error {
	e := &Error{Kind: Status(st), Offset: -1}
	if hasOffset {
		e.Offset = int(offset)
	}
	return e
}

// hasOffset tells whether a status reports an offset through error_offset.
func hasOffset(st C.contractpin_status) bool {
	s := Status(st)
	return (s >= 1 && s <= 13) || (s >= 32 && s <= 38) || s == ErrLockSyntax
}
