// A program outside the contractpin module that uses it as a dependency:
// scripts/test-packages.sh copies this directory into a fresh module under a
// temporary directory, requires contractpin.dev/go/contractpin (replaced by
// the repository's bindings/go) and builds it against the installed C
// library (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig).
//
//	consumer VECTORS.json
//
// digests every conformance vector that has a digest and compares it with the
// value the file records (computed independently, never by this library).
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"contractpin.dev/go/contractpin"
)

type vector struct {
	Name     string  `json:"name"`
	Mode     string  `json:"mode"`
	Input    *string `json:"input"`
	InputHex *string `json:"input_hex"`
	Digest   string  `json:"digest"`
	Error    string  `json:"error"`
}

// check returns how many vectors matched, or the first mismatch.
func check(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var doc struct {
		Count   int      `json:"count"`
		Vectors []vector `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return 0, err
	}
	if len(doc.Vectors) == 0 || len(doc.Vectors) != doc.Count {
		return 0, fmt.Errorf("%s: %d vectors, count says %d", path, len(doc.Vectors), doc.Count)
	}
	checked := 0
	for _, v := range doc.Vectors {
		if v.Error != "" || v.Digest == "" {
			continue
		}
		var in []byte
		switch {
		case v.Input != nil:
			in = []byte(*v.Input)
		case v.InputHex != nil:
			if in, err = hex.DecodeString(*v.InputHex); err != nil {
				return checked, fmt.Errorf("%s: %v", v.Name, err)
			}
		default:
			return checked, fmt.Errorf("%s: no input", v.Name)
		}
		var got string
		switch v.Mode {
		case "tool":
			got, err = contractpin.ToolDigest(in)
		case "tools-list":
			var s *contractpin.Server
			if s, err = contractpin.DigestToolsList(in); err == nil {
				got = s.Digest
			}
		case "value", "instructions":
			var canon []byte
			if canon, err = contractpin.Canonicalize(in); err == nil {
				// A value (or instructions string) vector's digest is
				// SHA-256 of the canonical bytes.
				got, err = sha256Text(canon)
			}
		default:
			return checked, fmt.Errorf("%s: unknown mode %q", v.Name, v.Mode)
		}
		if err != nil {
			return checked, fmt.Errorf("%s: %v", v.Name, err)
		}
		if got != v.Digest {
			return checked, fmt.Errorf("%s: digest %s, vectors.json says %s", v.Name, got, v.Digest)
		}
		checked++
	}
	return checked, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: consumer VECTORS.json")
		os.Exit(2)
	}
	if contractpin.Version() != contractpin.HeaderVersion {
		fmt.Fprintf(os.Stderr, "library %s, header %s\n", contractpin.Version(), contractpin.HeaderVersion)
		os.Exit(1)
	}
	n, err := check(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
	fmt.Printf("contractpin %s: %d vector digests match vectors.json\n", contractpin.Version(), n)
}
