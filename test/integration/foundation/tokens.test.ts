import { createPublicKey } from "node:crypto";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../../helpers/service.js";

let s: TestService;
beforeAll(async () => {
  s = await startTestService();
});
afterAll(() => s?.stop());

const tokenUrl = "/archivist/iam/v1/appidp/token";
const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields),
});

describe("token endpoint", () => {
  it("issues an RS256 at+jwt with the interface's claims, verifiable through discovery and JWKS", async () => {
    const res = await s.api(
      tokenUrl,
      form({ grant_type: "client_credentials", client_id: s.a.clientId, client_secret: s.a.clientSecret }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; token_type: string; expires_in: unknown };
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(3600);
    const header = decodeProtectedHeader(body.access_token);
    expect(header).toMatchObject({ alg: "RS256", typ: "at+jwt" });
    const discovery = (await (await s.api("/appidpv1/.well-known/openid-configuration")).json()) as {
      issuer: string;
      jwks_uri: string;
    };
    expect(discovery.issuer).toBe(`${s.url}/appidpv1`);
    const jwks = await (await fetch(discovery.jwks_uri)).json();
    const { payload } = await jwtVerify(body.access_token, createLocalJWKSet(jwks), {
      issuer: `${s.url}/appidpv1`,
      audience: `${s.url}/archivist`,
    });
    expect(payload.sub).toBe(s.a.clientId);
    expect(payload.client_id).toBe(s.a.clientId);
    expect(payload.jit_tenant_id).toMatch(/^tenant\/[0-9a-f-]{36}$/);
    expect(typeof payload.jti).toBe("string");
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
  });

  it.each([
    [{ client_id: "x", client_secret: "y" }, 400, "grant_type"],
    [{ grant_type: "password", client_id: "x", client_secret: "y" }, 400, "grant_type"],
    [{ grant_type: "client_credentials", client_secret: "y" }, 400, "client_id"],
    [{ grant_type: "client_credentials", client_id: "x" }, 400, "client_secret"],
  ])("answers %j with %i naming the field", async (fields, status, field) => {
    const res = await s.api(tokenUrl, form(fields as Record<string, string>));
    expect(res.status).toBe(status);
    const body = (await res.json()) as { code: number; message: string; details: unknown[] };
    expect(body.code).toBe(3);
    expect(body.message).toContain(field);
    expect(body.details).toEqual([]);
  });

  it("answers 401 for unknown clients and wrong secrets", async () => {
    for (const fields of [
      { grant_type: "client_credentials", client_id: s.a.clientId, client_secret: "wrong-secret-value" },
      {
        grant_type: "client_credentials",
        client_id: "6f1c7d1e-0000-4000-8000-000000000000",
        client_secret: "whatever",
      },
      { grant_type: "client_credentials", client_id: "not-a-uuid", client_secret: "whatever" },
    ]) {
      const res = await s.api(tokenUrl, form(fields));
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: number }).code).toBe(16);
    }
  });
});

describe("bearer authentication", () => {
  const path = "/archivist/iam/v1/applications";

  it("answers 401 for a missing, malformed, wrongly signed, foreign or expired token", async () => {
    const good = await s.token(s.a);
    const [h, p] = good.split(".");
    const other = await crypto.subtle.generateKey(
      {
        name: "RSASSA-PKCS1-v1_5",
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: "SHA-256",
      },
      true,
      ["sign", "verify"],
    );
    const forged = await new SignJWT({ sub: s.a.clientId })
      .setProtectedHeader({ alg: "RS256", typ: "at+jwt" })
      .setIssuer(`${s.url}/appidpv1`)
      .setAudience(`${s.url}/archivist`)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(other.privateKey);
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: "Basic abc" },
      { authorization: "Bearer not.a.jwt" },
      { authorization: `Bearer ${h}.${p}.AAAA` },
      { authorization: `Bearer ${forged}` },
    ];
    for (const headers of cases) {
      const res = await s.api(path, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      const body = (await res.json()) as { code: number; message: string };
      expect(body.code).toBe(16);
      expect(body.message.length).toBeGreaterThan(5);
    }
    expect(createPublicKey).toBeTypeOf("function");
  });

  it("refuses the tokens of a deleted application", async () => {
    const owner = await s.token(s.a);
    const created = (await (
      await s.api(path, { method: "POST", token: owner, json: { display_name: "doomed", roles: ["Owner"] } })
    ).json()) as {
      client_id: string;
      credentials: Array<{ secret: string }>;
    };
    const res = await s.api(
      "/archivist/iam/v1/appidp/token",
      form({
        grant_type: "client_credentials",
        client_id: created.client_id,
        client_secret: created.credentials[0]?.secret ?? "",
      }),
    );
    const tok = ((await res.json()) as { access_token: string }).access_token;
    expect((await s.api(path, { token: tok })).status).toBe(200);
    expect((await s.api(`${path}/${created.client_id}`, { method: "DELETE", token: owner })).status).toBe(
      200,
    );
    await new Promise((r) => setTimeout(r, 1100));
    expect((await s.api(path, { token: tok })).status).toBe(401);
  });
});
