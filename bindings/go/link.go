//go:build !contractpin_inrepo

package contractpin

// The installed library (`make install`): flags from contractpin.pc.

/*
#cgo pkg-config: contractpin
*/
import "C"
