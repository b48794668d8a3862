package contractpin

/*
#include "contractpin.h"
*/
import "C"

import (
	"fmt"
	"sync"
)

// VersionError is the error of every call that needs the library
// (ParseLock, NewGate, Verify, VerifyServer, Canonicalize, ToolContract,
// ToolDigest, DigestToolsList and their variants) when the library linked
// at run time is not compatible with the contractpin.h this package was
// built against (HeaderVersion): see CheckVersion. Nothing is called in
// such a library but its version functions.
type VersionError struct {
	// Library is the linked library's version (Version()).
	Library string
	// Header is HeaderVersion.
	Header string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("contractpin: the linked libcontractpin is %s, but this package was built against "+
		"contractpin.h %s and needs %s: link the library of the header's release "+
		"(a libcontractpin.so.0 of another release found first on LD_LIBRARY_PATH or the rpath, say)",
		e.Library, e.Header, versionRule(C.CONTRACTPIN_VERSION_MAJOR, C.CONTRACTPIN_VERSION_MINOR))
}

// versionCompatible reports whether a library of version libMajor.libMinor
// serves code built against a header of version hdrMajor.hdrMinor: the same
// major version, and while it is 0 the same minor version (semver: before
// 1.0 every minor release may change the ABI); from 1.0 on, a library minor
// version at least the header's (the ABI only gains functions within a
// major version). The patch version is not compared.
func versionCompatible(libMajor, libMinor, hdrMajor, hdrMinor uint32) bool {
	if libMajor != hdrMajor {
		return false
	}
	if hdrMajor == 0 {
		return libMinor == hdrMinor
	}
	return libMinor >= hdrMinor
}

// versionRule says which library versions versionCompatible accepts.
func versionRule(hdrMajor, hdrMinor uint32) string {
	if hdrMajor == 0 {
		return fmt.Sprintf("libcontractpin %d.%d.x", hdrMajor, hdrMinor)
	}
	return fmt.Sprintf("libcontractpin %d.x with x >= %d", hdrMajor, hdrMinor)
}

// checkVersion is CheckVersion for a library reporting version (the string)
// and major.minor.
func checkVersion(version string, major, minor uint32) error {
	if versionCompatible(major, minor, C.CONTRACTPIN_VERSION_MAJOR, C.CONTRACTPIN_VERSION_MINOR) {
		return nil
	}
	return &VersionError{Library: version, Header: HeaderVersion}
}

// libraryVersion is the linked library's check, made once, by the first
// call that needs the library.
var libraryVersion = sync.OnceValue(func() error {
	return checkVersion(Version(), uint32(C.contractpin_version_major()), uint32(C.contractpin_version_minor()))
})

// CheckVersion returns a *VersionError when the library linked at run time
// is not compatible with HeaderVersion: the same major.minor while the
// major version is 0 (every 0.x minor release may change the ABI), the same
// major and at least the header's minor from 1.0 on; the patch version is
// not compared. The calls that need the library return the same error;
// call it at start-up to fail early.
func CheckVersion() error {
	return libraryVersion()
}
