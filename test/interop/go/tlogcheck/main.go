// Command tlogcheck verifies a C2SP tlog-tiles log with Go's reference code, golang.org/x/mod's
// sumdb/note (the checkpoint's signature) and sumdb/tlog (tiles, inclusion and consistency
// proofs), as Debian packages them (golang-golang-x-mod-dev, built in GOPATH mode).
//
// Input: one JSON object {"base": tiles URL prefix, "vkey": log vkey, "checkpoint": note,
// "old_checkpoint": note, "leaves": [{"index": n, "data": hex}]}.
// Output: one JSON object with the verdicts.
package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type leaf struct {
	Index int64  `json:"index"`
	Data  string `json:"data"`
}

type input struct {
	Base          string `json:"base"`
	Vkey          string `json:"vkey"`
	Checkpoint    string `json:"checkpoint"`
	OldCheckpoint string `json:"old_checkpoint"`
	Leaves        []leaf `json:"leaves"`
}

type inclusion struct {
	Index int64  `json:"index"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

type output struct {
	Origin        string      `json:"origin"`
	Size          int64       `json:"size"`
	Unverified    int         `json:"unverified_signatures"`
	TreeHashOK    bool        `json:"tree_hash_ok"`
	Inclusion     []inclusion `json:"inclusion"`
	ConsistencyOK bool        `json:"consistency_ok"`
	Error         string      `json:"error,omitempty"`
}

// httpTiles reads C2SP tiles, whose paths are Go's without the height element.
type httpTiles struct{ base string }

func (r httpTiles) Height() int { return 8 }

func (r httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		path := "tile/" + strings.TrimPrefix(t.Path(), "tile/8/")
		res, err := http.Get(r.base + "/" + path)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		if res.StatusCode != 200 {
			return nil, fmt.Errorf("GET %s: %d", path, res.StatusCode)
		}
		out[i] = body
	}
	return out, nil
}

func (r httpTiles) SaveTiles([]tlog.Tile, [][]byte) {}

// open verifies a checkpoint note with the log's vkey and reads origin, size and root.
func open(text string, verifier note.Verifier) (string, tlog.Tree, int, error) {
	n, err := note.Open([]byte(text), note.VerifierList(verifier))
	if err != nil {
		return "", tlog.Tree{}, 0, err
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 {
		return "", tlog.Tree{}, 0, fmt.Errorf("short checkpoint")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return "", tlog.Tree{}, 0, err
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return "", tlog.Tree{}, 0, fmt.Errorf("bad root")
	}
	var h tlog.Hash
	copy(h[:], root)
	return lines[0], tlog.Tree{N: size, Hash: h}, len(n.UnverifiedSigs), nil
}

func run(in input) output {
	var out output
	verifier, err := note.NewVerifier(in.Vkey)
	if err != nil {
		out.Error = "vkey: " + err.Error()
		return out
	}
	origin, tree, unverified, err := open(in.Checkpoint, verifier)
	if err != nil {
		out.Error = "checkpoint: " + err.Error()
		return out
	}
	out.Origin, out.Size, out.Unverified = origin, tree.N, unverified
	hashes := tlog.TileHashReader(tree, httpTiles{in.Base})
	th, err := tlog.TreeHash(tree.N, hashes)
	out.TreeHashOK = err == nil && th == tree.Hash
	for _, l := range in.Leaves {
		data, err := hex.DecodeString(l.Data)
		r := inclusion{Index: l.Index}
		if err == nil {
			var p tlog.RecordProof
			p, err = tlog.ProveRecord(tree.N, l.Index, hashes)
			if err == nil {
				err = tlog.CheckRecord(p, tree.N, tree.Hash, l.Index, tlog.RecordHash(data))
			}
		}
		r.OK = err == nil
		if err != nil {
			r.Error = err.Error()
		}
		out.Inclusion = append(out.Inclusion, r)
	}
	if in.OldCheckpoint != "" {
		_, old, _, err := open(in.OldCheckpoint, verifier)
		if err == nil {
			var p tlog.TreeProof
			p, err = tlog.ProveTree(tree.N, old.N, hashes)
			if err == nil {
				err = tlog.CheckTree(p, tree.N, tree.Hash, old.N, old.Hash)
			}
		}
		out.ConsistencyOK = err == nil
		if err != nil {
			out.Error = "consistency: " + err.Error()
		}
	}
	return out
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_ = json.NewEncoder(os.Stdout).Encode(run(in))
}
