//go:build contractpin_inrepo

package contractpin

// The build of this checkout (scripts/build-lib.sh), for work inside the
// repository without installing: go test -tags contractpin_inrepo ./...
// The release build is preferred when both exist.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/lib/release -L${SRCDIR}/../../target/lib/debug -Wl,-rpath,${SRCDIR}/../../target/lib/release -Wl,-rpath,${SRCDIR}/../../target/lib/debug -lcontractpin
*/
import "C"
