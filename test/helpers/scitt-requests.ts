import { expect } from "vitest";
import { eventToStatement } from "../../src/core/scitt/index.js";
import type { TestService } from "./service.js";
import { deterministicSigner, vectorPublicKey } from "./vector-key.js";

/** The `n`th of a run of distinct signed statements (a created vCon each), signed by the vector key. */
export const statementOf = (n: number) =>
  eventToStatement(
    {
      arc_display_type: "vcon_created",
      payload: Buffer.alloc(32, n).toString("hex"),
      payload_hash_alg: "SHA-256",
      payload_preimage_content_type: "application/vcon+json",
      subject: `vcon://0190b6a1-0000-7000-8000-0000000000${String(n).padStart(2, "0")}`,
      timestamp_declared: "2025-01-01T00:00:00Z",
      vcon_operation: "vcon_created",
      vcon_draft_version: "01",
      scitt_draft_version: "10",
    },
    { issuer: "https://conserver.example", kid: "test-key-1" },
    deterministicSigner,
  );

/** A registration's request (`s.api`'s options): the COSE body, with the caller's token when given. */
export const cose = (body: Uint8Array, token?: string) => ({
  method: "POST",
  headers: { "content-type": "application/cose" },
  body: Buffer.from(body),
  redirect: "manual" as const,
  ...(token ? { token } : {}),
});

/** The entry id a registration's answer names in its Location. */
export const entryOf = (res: Response) => (res.headers.get("location") ?? "").split("/").pop() as string;

/** Trusts the vector key (kid `test-key-1`, which signs `statementOf`) in the tenancy of `token`. */
export async function trustVectorKey(s: TestService, token: string): Promise<void> {
  const res = await s.api("/archivist/v1/scitt/keys", {
    method: "POST",
    token,
    json: { kid: "test-key-1", public_jwk: vectorPublicKey.jwk },
  });
  expect(res.status, await res.clone().text()).toBe(200);
}
