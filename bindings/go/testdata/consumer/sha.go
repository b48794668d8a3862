package main

import (
	"crypto/sha256"
	"encoding/hex"
)

// sha256Text is "sha256:" + hex(SHA-256(b)), computed by Go's standard
// library, not by contractpin.
func sha256Text(b []byte) (string, error) {
	d := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(d[:]), nil
}
