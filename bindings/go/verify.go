package contractpin

/*
#include "contractpin.h"
*/
import "C"

import "runtime"

// ToolStatus is how one tool compares with its pin (spec section 6).
type ToolStatus uint32

// The tool statuses (the numbers of contractpin_tool_status).
const (
	Unchanged ToolStatus = C.CONTRACTPIN_TOOL_STATUS_UNCHANGED
	Drifted   ToolStatus = C.CONTRACTPIN_TOOL_STATUS_DRIFTED
	Added     ToolStatus = C.CONTRACTPIN_TOOL_STATUS_ADDED
	Removed   ToolStatus = C.CONTRACTPIN_TOOL_STATUS_REMOVED
)

// String is "unchanged", "drifted", "added" or "removed".
func (s ToolStatus) String() string {
	switch s {
	case Unchanged:
		return "unchanged"
	case Drifted:
		return "drifted"
	case Added:
		return "added"
	case Removed:
		return "removed"
	}
	return "unknown"
}

// ToolVerdict is the verdict for one pinned or live tool.
type ToolVerdict struct {
	Name   string
	Status ToolStatus
	// ChangedFields names the contract fields whose digests differ, for a
	// drifted tool, in canonical order (empty if the lock has no field digests).
	ChangedFields []string
	// Pinned and Live are the tool digests ("" for an added or removed tool).
	Pinned, Live string
	// RenamedTo (for a removed tool) or RenamedFrom (for an added tool) names
	// the likely rename counterpart, or is "".
	RenamedTo, RenamedFrom string
}

// Report is the verdict of Verify or VerifyServer for one server.
type Report struct {
	// ExitCode is 0 when the server matches the lock, 1 on any drift.
	ExitCode int
	// PinnedDigest and LiveDigest are the server digests.
	PinnedDigest, LiveDigest string
	// Tools holds every pinned or live tool, sorted by name (UTF-16 order).
	Tools []ToolVerdict
	// Instructions is the verdict on the server's instructions
	// (VerifyServer): drifted and removed fail the server, added fails it
	// unless AllowNew. InstructionsNotChecked for Verify, and with
	// IgnoreInstructions.
	Instructions InstructionsStatus
	// PinnedInstructions and LiveInstructions are the instructions digests
	// of that verdict ("" when there is none, or when not checked).
	PinnedInstructions, LiveInstructions string
	// VersionChanged tells whether serverInfo.version differs between the
	// lock and the handshake; nil when unknown (either side has no
	// serverInfo, and always for Verify). Informational.
	VersionChanged *bool
	// JSON is the stable JSON report (schema "contractpin_report" version 1):
	// for VerifyServer, byte for byte what `contractpin verify --format json`
	// writes for this server.
	JSON []byte
}

// VerifyOptions tunes Verify.
type VerifyOptions struct {
	// AllowNew accepts tools that are live but not pinned (--allow-new),
	// and, for VerifyServer, instructions that are live but not pinned.
	AllowNew bool
	// IgnoreInstructions does not compare the server's instructions
	// (--ignore-instructions; VerifyServer only, Verify never compares them).
	IgnoreInstructions bool
	// Limits applies to the live tools/list; nil means the defaults.
	Limits *Limits
}

// Verify checks the live tools/list of one server against its entry in a
// lock file. A non-nil error means no verdict was reached: a lock error
// (errors.Is with ErrLockSyntax, ErrLockInvalid, ErrLockUnknownServer, ...;
// exit code 2) or an invalid tools/list (exit code 1). Clients enforcing pins
// must refuse the server in both cases.
func Verify(lock []byte, server string, toolsList []byte) (*Report, error) {
	return VerifyWithOptions(lock, server, toolsList, VerifyOptions{})
}

// VerifyWithOptions is Verify with options.
func VerifyWithOptions(lock []byte, server string, toolsList []byte, opts VerifyOptions) (*Report, error) {
	if err := CheckVersion(); err != nil {
		return nil, err
	}
	cl, err := opts.Limits.c()
	if err != nil {
		return nil, err
	}
	var rep *C.contractpin_report
	var off C.size_t
	st := C.contractpin_verify_with_limits(
		bytesPtr(lock), C.size_t(len(lock)),
		stringPtr(server), C.size_t(len(server)),
		bytesPtr(toolsList), C.size_t(len(toolsList)),
		verifyFlags(opts), cl, &rep, &off)
	runtime.KeepAlive(lock)
	runtime.KeepAlive(server)
	runtime.KeepAlive(toolsList)
	if st != C.CONTRACTPIN_STATUS_OK {
		return nil, newError(st, off, hasOffset(st))
	}
	return takeReport(rep), nil
}

// VerifyServer is `contractpin verify` of one server in one call: the live
// tools/list and the handshake (initializeResult: the result object of the
// initialize or server/discover response as the server sent it, the input
// of GuardInstructions) against the server's entry in a lock file. The
// verdict includes the instructions, and Report.JSON is the CLI's report,
// with server_info, protocol_version and instructions filled in.
//
// A non-nil error means no verdict was reached, as for Verify; an *Error
// with an Offset names the input it is into (Error.Input): a handshake
// result that is not a JSON object, or a whole JSON-RPC response, is
// ErrUnexpectedByte in the "initialize result".
func VerifyServer(lock []byte, server string, initializeResult, toolsList []byte, opts VerifyOptions) (*Report, error) {
	if err := CheckVersion(); err != nil {
		return nil, err
	}
	cl, err := opts.Limits.c()
	if err != nil {
		return nil, err
	}
	var rep *C.contractpin_report
	var off C.size_t
	var in C.contractpin_input
	st := C.contractpin_verify_server_with_limits(
		bytesPtr(lock), C.size_t(len(lock)),
		stringPtr(server), C.size_t(len(server)),
		bytesPtr(initializeResult), C.size_t(len(initializeResult)),
		bytesPtr(toolsList), C.size_t(len(toolsList)),
		verifyFlags(opts), cl, &rep, &off, &in)
	runtime.KeepAlive(lock)
	runtime.KeepAlive(server)
	runtime.KeepAlive(initializeResult)
	runtime.KeepAlive(toolsList)
	if st != C.CONTRACTPIN_STATUS_OK {
		return nil, inputError(st, off, in)
	}
	return takeReport(rep), nil
}

// inputError is newError with the input the offset is into.
func inputError(st C.contractpin_status, off C.size_t, in C.contractpin_input) error {
	if !hasOffset(st) {
		return newError(st, off, false)
	}
	e := &Error{Kind: Status(st), Offset: int(off)}
	switch in {
	case C.CONTRACTPIN_INPUT_LOCK:
		e.Input = "lock"
	case C.CONTRACTPIN_INPUT_TOOLS_LIST:
		e.Input = "tools/list"
	case C.CONTRACTPIN_INPUT_INITIALIZE_RESULT:
		e.Input = "initialize result"
	}
	return e
}

func verifyFlags(opts VerifyOptions) C.uint32_t {
	var flags C.uint32_t
	if opts.AllowNew {
		flags |= C.CONTRACTPIN_VERIFY_ALLOW_NEW
	}
	if opts.IgnoreInstructions {
		flags |= C.CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS
	}
	return flags
}

// takeReport reads a contractpin_report into a Report, and frees it.
func takeReport(rep *C.contractpin_report) *Report {
	defer C.contractpin_report_free(rep)

	out := &Report{ExitCode: int(C.contractpin_report_exit_code(rep))}
	var raw [32]C.uint8_t
	if C.contractpin_report_pinned_digest(rep, &raw[0]) == C.CONTRACTPIN_STATUS_OK {
		out.PinnedDigest = digestText(&raw)
	}
	if C.contractpin_report_live_digest(rep, &raw[0]) == C.CONTRACTPIN_STATUS_OK {
		out.LiveDigest = digestText(&raw)
	}
	count := int(C.contractpin_report_tool_count(rep))
	out.Tools = make([]ToolVerdict, count)
	for i := 0; i < count; i++ {
		idx := C.size_t(i)
		var name *C.uint8_t
		var nameLen C.size_t
		var status, changed C.uint32_t
		C.contractpin_report_tool(rep, idx, &name, &nameLen, &status, &changed)
		v := ToolVerdict{Name: goString(name, nameLen), Status: ToolStatus(status)}
		for f := C.uint32_t(0); f < C.CONTRACTPIN_FIELD_COUNT; f++ {
			if changed&(1<<f) != 0 {
				v.ChangedFields = append(v.ChangedFields, C.GoString(C.contractpin_field_name(f)))
			}
		}
		if C.contractpin_report_tool_pinned_digest(rep, idx, &raw[0]) == C.CONTRACTPIN_STATUS_OK {
			v.Pinned = digestText(&raw)
		}
		if C.contractpin_report_tool_live_digest(rep, idx, &raw[0]) == C.CONTRACTPIN_STATUS_OK {
			v.Live = digestText(&raw)
		}
		var other *C.uint8_t
		var otherLen C.size_t
		if C.contractpin_report_tool_rename(rep, idx, nil, &other, &otherLen) == C.CONTRACTPIN_STATUS_OK {
			if v.Status == Added {
				v.RenamedFrom = goString(other, otherLen)
			} else {
				v.RenamedTo = goString(other, otherLen)
			}
		}
		out.Tools[i] = v
	}
	var ins C.contractpin_instructions_status
	C.contractpin_report_instructions(rep, &ins)
	out.Instructions = InstructionsStatus(ins)
	if C.contractpin_report_instructions_pinned_digest(rep, &raw[0]) == C.CONTRACTPIN_STATUS_OK {
		out.PinnedInstructions = digestText(&raw)
	}
	if C.contractpin_report_instructions_live_digest(rep, &raw[0]) == C.CONTRACTPIN_STATUS_OK {
		out.LiveInstructions = digestText(&raw)
	}
	var changed C.int32_t
	if C.contractpin_report_version_changed(rep, &changed) == C.CONTRACTPIN_STATUS_OK {
		moved := changed == 1
		out.VersionChanged = &moved
	}
	var need C.size_t
	C.contractpin_report_json(rep, nil, 0, &need)
	out.JSON = make([]byte, int(need))
	C.contractpin_report_json(rep, bytesPtr(out.JSON), need, &need)
	return out
}
