package main

import (
	"os"
	"testing"
)

// CONTRACTPIN_VECTORS names vectors/vectors.json (scripts/test-packages.sh sets it).
func TestVectorDigests(t *testing.T) {
	path := os.Getenv("CONTRACTPIN_VECTORS")
	if path == "" {
		t.Fatal("CONTRACTPIN_VECTORS is not set")
	}
	n, err := check(path)
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d vectors checked", n)
	}
	t.Logf("%d vector digests match", n)
}
