import { describe, expect, it } from "vitest";
import {
  cosign,
  ed25519PublicKey,
  ed25519Signer,
  formatVkey,
  signatureLine,
  signNote,
} from "../../../../src/core/log/note-sign.js";
import { formatCheckpoint } from "../../../../src/core/log/tlog-format.js";
import {
  cosignatureVerifier,
  ed25519Verifier,
  keyIdOf,
  NoteError,
  parseCheckpoint,
  parseNote,
  parseVkey,
  verifierFromVkey,
  verifyNote,
} from "../../../../src/formats/tlog/index.js";

// The example of c2sp.org/signed-note, "Verifier keys".
const SPEC_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
const SPEC_NOTE =
  "This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";
// The example of c2sp.org/tlog-checkpoint.
const SPEC_CHECKPOINT =
  "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";

const seed = (b: number) => new Uint8Array(32).fill(b);

describe("signed notes (c2sp.org/signed-note)", () => {
  it("verifies the spec's example note against the spec's vkey", () => {
    const k = parseVkey(SPEC_VKEY);
    expect(k.name).toBe("example.com/foo");
    expect(k.keyId).toBe(0x530d903a);
    expect(keyIdOf(k.name, k.type, k.publicKey)).toBe(0x530d903a);
    expect(formatVkey(k.name, k.type, k.publicKey)).toBe(SPEC_VKEY);
    const { text, verified } = verifyNote(SPEC_NOTE, [verifierFromVkey(SPEC_VKEY)]);
    expect(text).toBe("This is an example message.\n");
    expect(verified).toHaveLength(1);
  });

  it("refuses the note when a known key's signature fails, and when no known key signed", () => {
    const tampered = SPEC_NOTE.replace("example message", "example massage");
    expect(() => verifyNote(tampered, [verifierFromVkey(SPEC_VKEY)])).toThrow(/does not verify/);
    const other = ed25519Verifier("example.com/bar", ed25519PublicKey(seed(1)));
    expect(() => verifyNote(SPEC_NOTE, [other])).toThrow(/no signature by a known key/);
  });

  it("ignores unknown signatures next to a good one", () => {
    const a = ed25519Signer("log.example/a", seed(2));
    const b = ed25519Signer("log.example/b", seed(3));
    const note = signNote("hello\n", [a, b]);
    const { verified } = verifyNote(note, [ed25519Verifier("log.example/b", ed25519PublicKey(seed(3)))]);
    expect(verified.map((s) => s.name)).toEqual(["log.example/b"]);
  });

  it("refuses malformed notes and vkeys", () => {
    expect(() => parseNote("no signatures\n")).toThrow(NoteError);
    expect(() => parseNote("text\n\n— name notbase64!\n")).toThrow(NoteError);
    expect(() => parseNote("text\u0007\n\n— n AAAAAAA=\n")).toThrow(/control/);
    expect(() => parseVkey("example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k")).toThrow(
      /does not match/,
    );
    expect(() => parseVkey("a b+530d903a+AQ==")).toThrow(NoteError);
  });
});

describe("checkpoints (c2sp.org/tlog-checkpoint)", () => {
  it("parses and formats the spec's example", () => {
    const c = parseCheckpoint(SPEC_CHECKPOINT);
    expect(c.origin).toBe("example.com/behind-the-sofa");
    expect(c.size).toBe(20852163);
    expect(c.extensions).toEqual([]);
    expect(formatCheckpoint(c)).toBe(SPEC_CHECKPOINT);
  });

  it("refuses leading zeroes, a short root and empty extension lines", () => {
    expect(() => parseCheckpoint("o\n012\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n")).toThrow(
      /leading/,
    );
    expect(() => parseCheckpoint("o\n12\nAAAA\n")).toThrow(/SHA-256/);
    expect(() => parseCheckpoint("o\n12\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\nx\n")).toThrow();
  });
});

describe("cosignatures (c2sp.org/tlog-cosignature, v1)", () => {
  it("signs `cosignature/v1`, the time and the checkpoint text, with key id type 0x04", () => {
    const sig = cosign("witness.example/w1", seed(4), SPEC_CHECKPOINT, 1679315147);
    const pub = ed25519PublicKey(seed(4));
    expect(sig.keyId).toBe(keyIdOf("witness.example/w1", 0x04, pub));
    expect(sig.signature).toHaveLength(72);
    expect(Buffer.from(sig.signature.subarray(0, 8)).readBigUInt64BE()).toBe(1679315147n);
    const note = `${SPEC_CHECKPOINT}\n${signatureLine(sig)}`;
    const vkey = formatVkey("witness.example/w1", 0x04, pub);
    expect(verifyNote(note, [verifierFromVkey(vkey)]).verified).toHaveLength(1);
    // The same key as an Ed25519 (0x01) note key has another key id, so it does not match.
    expect(() => verifyNote(note, [ed25519Verifier("witness.example/w1", pub)])).toThrow(/no signature/);
    // Another time than the one signed fails.
    const forged = { ...sig, signature: Uint8Array.from(sig.signature) };
    forged.signature[7] = (forged.signature[7] as number) ^ 1;
    const bad = `${SPEC_CHECKPOINT}\n${signatureLine(forged)}`;
    expect(() => verifyNote(bad, [cosignatureVerifier("witness.example/w1", pub)])).toThrow(
      /does not verify/,
    );
  });
});

describe("vkeys whose base64 key holds a plus", () => {
  it("parse (the name ends at the first plus)", () => {
    for (let b = 0; b < 40; b++) {
      const pub = ed25519PublicKey(seed(b));
      const vkey = formatVkey("log.example/x", 0x01, pub);
      expect(parseVkey(vkey).publicKey).toEqual(pub);
    }
  });
});
