package contractpin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// vector is one entry of vectors/vectors.json (see vectors/README.md).
type vector struct {
	Name         string                     `json:"name"`
	Mode         string                     `json:"mode"`
	Input        *string                    `json:"input"`
	InputHex     *string                    `json:"input_hex"`
	CanonicalHex string                     `json:"canonical_hex"`
	Digest       string                     `json:"digest"`
	Fields       map[string]string          `json:"fields"`
	Tools        map[string]json.RawMessage `json:"tools"`
	Error        string                     `json:"error"`
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	path := os.Getenv("CONTRACTPIN_VECTORS")
	if path == "" {
		path = filepath.Join("..", "..", "vectors", "vectors.json")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the conformance vectors: %v", err)
	}
	var doc struct {
		Count   int      `json:"count"`
		Vectors []vector `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Vectors) == 0 || len(doc.Vectors) != doc.Count {
		t.Fatalf("%d vectors, count says %d", len(doc.Vectors), doc.Count)
	}
	return doc.Vectors
}

func (v *vector) input(t *testing.T) []byte {
	switch {
	case v.Input != nil && v.InputHex == nil:
		return []byte(*v.Input)
	case v.InputHex != nil && v.Input == nil:
		b, err := hex.DecodeString(*v.InputHex)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Fatalf("%s: exactly one of input and input_hex expected", v.Name)
	return nil
}

func sha(b []byte) string {
	d := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(d[:])
}

// checkError compares a failure with the vector's error kind.
func checkError(t *testing.T, err error, kind string, inputLen int) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("accepted (or untyped error %v), expected %s", err, kind)
	}
	if e.Kind.Name() != kind {
		t.Fatalf("error %s, expected %s", e, kind)
	}
	if !errors.Is(err, e.Kind) || e.Offset < 0 || e.Offset > inputLen {
		t.Fatalf("bad error %#v", e)
	}
}

// Every conformance vector, each as a parallel subtest (so -race sees
// concurrent calls into the library).
func TestVectors(t *testing.T) {
	vectors := loadVectors(t)
	modes := map[string]int{}
	for i := range vectors {
		v := vectors[i]
		modes[v.Mode]++
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			in := v.input(t)
			want, err := hex.DecodeString(v.CanonicalHex)
			if err != nil {
				t.Fatal(err)
			}
			switch v.Mode {
			// instructions (SPEC.md section 13): SHA-256 of the canonical
			// JSON string, so canonicalize + SHA-256 checks it.
			case "value", "instructions":
				got, err := Canonicalize(in)
				if v.Error != "" {
					checkError(t, err, v.Error, len(in))
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) || sha(got) != v.Digest {
					t.Fatalf("canonical %q, want %q", got, want)
				}
			case "tool":
				got, err := ToolContract(in)
				d, derr := ToolDigest(in)
				if v.Error != "" {
					checkError(t, err, v.Error, len(in))
					checkError(t, derr, v.Error, len(in))
					return
				}
				if err != nil || derr != nil {
					t.Fatal(err, derr)
				}
				if !bytes.Equal(got, want) || d != v.Digest {
					t.Fatalf("contract %q digest %s, want %q %s", got, d, want, v.Digest)
				}
				// Field digests: the tool as a one-element tools list.
				s, err := DigestToolsList(append(append([]byte("["), in...), ']'))
				if err != nil || len(s.Tools) != 1 || s.Tools[0].Digest != v.Digest {
					t.Fatalf("as a list: %+v %v", s, err)
				}
				if !equalMaps(s.Tools[0].Fields, v.Fields) {
					t.Fatalf("fields %v, want %v", s.Tools[0].Fields, v.Fields)
				}
			case "tools-list":
				s, err := DigestToolsList(in)
				if v.Error != "" {
					checkError(t, err, v.Error, len(in))
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if s.Digest != v.Digest || sha(want) != v.Digest {
					t.Fatalf("server digest %s, want %s", s.Digest, v.Digest)
				}
				if len(s.Tools) != len(v.Tools) {
					t.Fatalf("%d tools, want %d", len(s.Tools), len(v.Tools))
				}
				for _, tool := range s.Tools {
					var w struct {
						Digest string            `json:"digest"`
						Fields map[string]string `json:"fields"`
					}
					raw, ok := v.Tools[tool.Name]
					if !ok || json.Unmarshal(raw, &w) != nil {
						t.Fatalf("unexpected tool %q", tool.Name)
					}
					if tool.Digest != w.Digest || !equalMaps(tool.Fields, w.Fields) {
						t.Fatalf("tool %q: %+v, want %+v", tool.Name, tool, w)
					}
				}
			default:
				t.Fatalf("unknown mode %q", v.Mode)
			}
		})
	}
	t.Logf("%d vectors: %v", len(vectors), modes)
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// The buffer errors are API-level, not vectors: exercise them here.
func TestSizeLimit(t *testing.T) {
	l := DefaultLimits()
	l.MaxInput = 3
	_, err := CanonicalizeWithLimits([]byte("[10]"), &l)
	if !errors.Is(err, ErrSizeLimit) {
		t.Fatal(err)
	}
	l = DefaultLimits()
	l.MaxDepth = 2
	_, err = CanonicalizeWithLimits([]byte("[[[1]]]"), &l)
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrDepthLimit || e.Offset != 2 {
		t.Fatal(err)
	}
}
