import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nodeSignatureKey } from "../../../src/core/node/crypto.js";
import { ES256 } from "../../../src/formats/cose/sign1.js";
import { keysFromKeySet, verifyStatement } from "../../../src/verify/index.js";
import { testEngine } from "../../helpers/databases.js";
import { ISSUER_ALGORITHMS, issuerKeyPair, issuerStatement } from "../../helpers/issuer-keys.js";
import { until } from "../../helpers/poll.js";
import { serviceForSuite, type TestService } from "../../helpers/service.js";

/*
 * Issue 74: a tenancy trusts issuer keys of every algorithm the verifier checks, not P-256 alone
 * (the SCITT community's emulator makes its issuers' keys on P-384). Each is registered, a
 * statement it signed is registered, and its receipts verify; a statement that names another
 * algorithm than its key's is refused, as is a key of a kind no statement may be signed with.
 */
const suite = serviceForSuite();
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());
const cose = (body: Uint8Array, token: string) => ({
  method: "POST",
  headers: { "content-type": "application/cose" },
  body: Buffer.from(body),
  redirect: "manual" as const,
  token,
});
const trust = (s: TestService, token: string, kid: string, jwk: unknown) =>
  s.api("/archivist/v1/scitt/keys", { method: "POST", token, json: { kid, public_jwk: jwk } });

/** Registers a statement with the token, then reads its entry until sealed: its Location. */
async function register(s: TestService, token: string, statement: Uint8Array): Promise<string> {
  const res = await s.api("/entries", cose(statement, token));
  expect([201, 202], await res.clone().text()).toContain(res.status);
  const location = res.headers.get("location") ?? "";
  expect(location).toMatch(/\/entries\/events_[0-9a-f-]{36}$/);
  await until(async () => ((await s.api(location, { token })).status === 200 ? true : undefined));
  return location;
}

describe(`statement issuers on P-256, P-384, P-521 and Ed25519 (${testEngine()})`, () => {
  it.each(ISSUER_ALGORITHMS)(
    "$alg: the key is trusted, a statement it signed registered, its receipts verify",
    async (a) => {
      const { s, token } = suite;
      const key = issuerKeyPair(a);
      const kid = `issuer-${a.alg}`;
      const trusted = await trust(s, token, kid, key.publicJwk);
      expect(trusted.status, await trusted.clone().text()).toBe(200);
      expect(await trusted.json()).toMatchObject({ kid, alg: a.alg, public_jwk: { crv: a.curve } });
      const listed = (await (await s.api("/archivist/v1/scitt/keys", { token })).json()) as {
        keys: Array<{ kid: string; alg: string }>;
      };
      expect(listed.keys).toContainEqual(expect.objectContaining({ kid, alg: a.alg }));

      const statement = issuerStatement(key, {
        alg: a.cose,
        kid,
        issuer: `https://${a.alg.toLowerCase()}.issuer.example`,
        subject: `urn:test:${a.alg}`,
        payload: new TextEncoder().encode(JSON.stringify({ signed: a.alg })),
      });
      const location = await register(s, token, statement);
      const serviceKeys = keysFromKeySet(await bytes(await s.api("/.well-known/scitt-keys")));
      const issuerKeys = new Map([[kid, nodeSignatureKey(key.publicKey)]]);
      for (const profile of ["rfc9162", "mmr"] as const) {
        const transparent = await s.api(`${location}/statement?transparent=true&profile=${profile}`, {
          token,
        });
        expect(transparent.status).toBe(200);
        const v = verifyStatement(await bytes(transparent), { issuerKeys, serviceKeys });
        expect(v, profile).toMatchObject({ ok: true, receipts: 1, profiles: [profile] });
      }
      // Another key of the same algorithm does not stand for this one.
      const other = new Map([[kid, nodeSignatureKey(issuerKeyPair(a).publicKey)]]);
      expect(verifyStatement(statement, { issuerKeys: other, serviceKeys })).toMatchObject({ ok: false });
    },
  );

  it("refuses a statement that names another algorithm than its key's, saying which", async () => {
    const { s, token } = suite;
    const p384 = ISSUER_ALGORITHMS[1];
    const key = issuerKeyPair(p384);
    expect((await trust(s, token, "issuer-p384-as-es256", key.publicJwk)).status).toBe(200);
    const mislabelled = issuerStatement(key, {
      alg: ES256,
      kid: "issuer-p384-as-es256",
      issuer: "https://mislabelled.issuer.example",
      subject: "urn:test:mislabelled",
      payload: new TextEncoder().encode("{}"),
    });
    const res = await s.api("/entries", cose(mislabelled, token));
    expect(res.status).toBe(400);
    expect(Buffer.from(await res.arrayBuffer()).toString("latin1")).toContain(
      "the statement is signed under ES256, but the trusted issuer key signs under ES384",
    );
  });

  it("refuses a key no statement may be signed with, naming the kinds it takes", async () => {
    const { s, token } = suite;
    for (const jwk of [
      generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ format: "jwk" }),
      generateKeyPairSync("ec", { namedCurve: "secp256k1" }).publicKey.export({ format: "jwk" }),
      generateKeyPairSync("x25519").publicKey.export({ format: "jwk" }),
    ]) {
      const res = await trust(s, token, "refused", jwk);
      expect(res.status, String(jwk.crv ?? jwk.kty)).toBe(400);
      expect(await res.text()).toContain(
        "public_jwk must be an EC key on P-256, P-384 or P-521 (ES256, ES384, ES512) or an OKP key on Ed25519 (EdDSA)",
      );
    }
  });
});
