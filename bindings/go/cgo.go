// Package contractpin is the Go binding of the contractpin C ABI: pin MCP
// tool contracts as SHA-256 digests over RFC 8785 canonical JSON, and verify
// a live tools/list against a contractpin.lock at run time.
//
// The package links the installed libcontractpin through pkg-config
// (`#cgo pkg-config: contractpin`): install the C library first with
// `make install PREFIX=...` at the repository root, and put
// PREFIX/lib/pkgconfig on PKG_CONFIG_PATH when PREFIX is not a system
// prefix (then the program also needs PREFIX/lib at run time: LD_LIBRARY_PATH,
// or CGO_LDFLAGS="-Wl,-rpath,PREFIX/lib" at build time).
//
// Inside the contractpin repository, the build tag contractpin_inrepo links
// the checkout's own build instead (scripts/build-lib.sh puts it in
// target/lib/release or target/lib/debug):
//
//	go test -tags contractpin_inrepo ./...
//
// The library linked at run time must be of the header's release (same
// major.minor while 0.x): the calls that need it return a *VersionError
// otherwise (CheckVersion). Keep LD_LIBRARY_PATH free of empty and relative
// elements: the system loader reads them as, or against, the working
// directory.
//
// Every function is safe for concurrent use. Errors are *Error values that
// carry a Status (usable with errors.Is against the Err* sentinels) and the
// byte offset of the problem in the input.
package contractpin

/*
#include "contractpin.h"
*/
import "C"

import "unsafe"

// bytesPtr returns a pointer to the first byte of b, or nil for an empty
// slice (the C ABI reads NULL with length 0 as empty input).
func bytesPtr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// stringPtr is bytesPtr for a string (the C ABI never writes through it).
func stringPtr(s string) *C.uint8_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(s)))
}

// goString copies a (pointer, length) string owned by the library.
func goString(p *C.uint8_t, n C.size_t) string {
	if n == 0 {
		return ""
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n)))
}

// digestText formats 32 raw digest bytes as "sha256:<hex>".
func digestText(raw *[32]C.uint8_t) string {
	var text [C.CONTRACTPIN_DIGEST_TEXT_SIZE]C.char
	C.contractpin_digest_to_text(&raw[0], &text[0])
	return C.GoStringN(&text[0], C.CONTRACTPIN_DIGEST_TEXT_LEN)
}

// Version is the version of the linked library, such as "0.1.0".
func Version() string {
	return C.GoString(C.contractpin_version())
}

// HeaderVersion is the version of the contractpin.h this package was built
// against; it equals Version() unless the header and library are mismatched
// (CheckVersion says whether the library is one the package can use).
const HeaderVersion = C.CONTRACTPIN_VERSION_STRING
