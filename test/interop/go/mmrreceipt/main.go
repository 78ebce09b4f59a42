// Command mmrreceipt reads MMR-profile COSE receipts the way DataTrails' Go verifiers do: the
// unprotected header is unmarshalled with fxamacker/cbor into a struct whose 396 / -1 field is a
// list of {1: mmr index, 2: path} maps (the shape go-datatrails-merklelog declares for
// MMRiverInclusionProof). It then recomputes the peak from the leaf (draft-bryce MMR arithmetic)
// and checks the ES256 signature over the detached payload.
//
// Input: one JSON object a line {"receipt": base64, "leaf": hex, "x": base64url, "y": base64url}.
// Output: one JSON object a line {"ok", "index", "path", "peak", "error"}.
package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/bits"
	"os"

	"github.com/fxamacker/cbor" // Debian installs the v2 module at its GOPATH path, without /v2
)

type inclusionProof struct {
	Index uint64   `cbor:"1,keyasint"`
	Path  [][]byte `cbor:"2,keyasint"`
}

type verifiableProofs struct {
	Inclusion []inclusionProof `cbor:"-1,keyasint,omitempty"`
}

type unprotectedHeader struct {
	Proofs verifiableProofs `cbor:"396,keyasint"`
}

type sign1 struct {
	_           struct{} `cbor:",toarray"`
	Protected   []byte
	Unprotected cbor.RawMessage
	Payload     []byte
	Signature   []byte
}

type input struct {
	Receipt string `json:"receipt"`
	Leaf    string `json:"leaf"`
	X       string `json:"x"`
	Y       string `json:"y"`
}

type output struct {
	OK    bool   `json:"ok"`
	Index uint64 `json:"index"`
	Path  int    `json:"path"`
	Peak  string `json:"peak"`
	Error string `json:"error,omitempty"`
}

// height of the node at MMR index i: climb to the left-most node of its height.
func indexHeight(i uint64) int {
	pos := i + 1
	for bits.OnesCount64(pos) != bits.Len64(pos) {
		pos -= (uint64(1) << (bits.Len64(pos) - 1)) - 1
	}
	return bits.Len64(pos) - 1
}

func hashPosPair(pos uint64, a, b []byte) []byte {
	h := sha256.New()
	var p [8]byte
	binary.BigEndian.PutUint64(p[:], pos)
	h.Write(p[:])
	h.Write(a)
	h.Write(b)
	return h.Sum(nil)
}

func includedRoot(i uint64, node []byte, path [][]byte) []byte {
	root := node
	g := indexHeight(i)
	for _, sibling := range path {
		if indexHeight(i+1) > g {
			i++
			root = hashPosPair(i+1, sibling, root)
		} else {
			i += uint64(2) << g
			root = hashPosPair(i+1, root, sibling)
		}
		g++
	}
	return root
}

func check(in input) output {
	raw, err := base64.StdEncoding.DecodeString(in.Receipt)
	if err != nil {
		return output{Error: "receipt is not base64"}
	}
	var tag cbor.RawTag
	if err := cbor.Unmarshal(raw, &tag); err != nil || tag.Number != 18 {
		return output{Error: fmt.Sprintf("not a tagged COSE_Sign1: %v", err)}
	}
	var msg sign1
	if err := cbor.Unmarshal(tag.Content, &msg); err != nil {
		return output{Error: fmt.Sprintf("COSE_Sign1: %v", err)}
	}
	var header unprotectedHeader
	if err := cbor.Unmarshal(msg.Unprotected, &header); err != nil {
		return output{Error: fmt.Sprintf("unprotected header: %v", err)}
	}
	if len(header.Proofs.Inclusion) == 0 {
		return output{Error: "no inclusion proof under 396 / -1"}
	}
	proof := header.Proofs.Inclusion[0]
	leaf, err := hex.DecodeString(in.Leaf)
	if err != nil {
		return output{Error: "leaf is not hex"}
	}
	peak := includedRoot(proof.Index, leaf, proof.Path)
	out := output{Index: proof.Index, Path: len(proof.Path), Peak: hex.EncodeToString(peak)}
	x, errX := base64.RawURLEncoding.DecodeString(in.X)
	y, errY := base64.RawURLEncoding.DecodeString(in.Y)
	if errX != nil || errY != nil || len(msg.Signature) != 64 {
		out.Error = "bad key or signature length"
		return out
	}
	toBeSigned, err := cbor.Marshal([]interface{}{"Signature1", msg.Protected, []byte{}, peak})
	if err != nil {
		out.Error = err.Error()
		return out
	}
	digest := sha256.Sum256(toBeSigned)
	key := ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	r := new(big.Int).SetBytes(msg.Signature[:32])
	s := new(big.Int).SetBytes(msg.Signature[32:])
	out.OK = ecdsa.Verify(&key, digest[:], r, s)
	if !out.OK {
		out.Error = "signature does not verify over the recomputed peak"
	}
	return out
}

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	enc := json.NewEncoder(os.Stdout)
	for scanner.Scan() {
		var in input
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			_ = enc.Encode(output{Error: "input line is not JSON"})
			continue
		}
		_ = enc.Encode(check(in))
	}
}
