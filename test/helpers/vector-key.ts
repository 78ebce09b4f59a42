import { p256 } from "@noble/curves/nist.js";
import type { Signer } from "../../src/core/log/sign1.js";
import { eventToStatement } from "../../src/core/scitt/index.js";
import { ecJwk, publicKeyFromJwk } from "../../src/formats/crypto/public-key.js";
import { fixtureJson } from "./fixtures.js";

interface Vectors {
  key: { d: string; publicJwk: { kty: string; crv: string; x: string; y: string } };
}

const v = fixtureJson<Vectors>("vectors/signed-statement-generated.json");

/** The public key of the generated statement vectors (RFC 6979 A.2.5 P-256 test key). */
export const vectorPublicKey = publicKeyFromJwk(ecJwk(v.key.publicJwk));

/** RFC 6979 deterministic ES256 signer with the vectors' key, so re-signing reproduces their bytes. */
export const deterministicSigner: Signer = (data) =>
  p256.sign(data, new Uint8Array(Buffer.from(v.key.d, "hex")));

/**
 * A template-0.3.0 statement signed with the vectors' key: the `n`th distinct payload, one
 * vCon operation on `subject` (by default the `n`th vCon), issued by `issuer` under kid `test-key-1`.
 */
export function vectorStatement(
  n: number,
  opts: { subject?: string; issuer?: string; operation?: string } = {},
): Uint8Array {
  const operation = opts.operation ?? "vcon_created";
  return eventToStatement(
    {
      arc_display_type: operation,
      payload: Buffer.alloc(32, n).toString("hex"),
      payload_hash_alg: "SHA-256",
      payload_preimage_content_type: "application/vcon+json",
      subject: opts.subject ?? `vcon://0190b6a1-0000-7000-8000-0000000011${String(n).padStart(2, "0")}`,
      timestamp_declared: "2025-01-01T00:00:00Z",
      vcon_operation: operation,
      vcon_draft_version: "01",
    },
    { issuer: opts.issuer ?? "https://conserver.example", kid: "test-key-1" },
    deterministicSigner,
  );
}
