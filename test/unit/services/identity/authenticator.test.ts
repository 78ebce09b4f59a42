import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Ctx } from "../../../../src/context.js";
import { Authenticator } from "../../../../src/services/identity/auth.js";
import { appIdpIssuer, tokenAudience } from "../../../../src/services/identity/tokens.js";
import type { Db } from "../../../../src/store/drivers/db.js";

const BASE = "https://archivist.example";
const APP = randomUUID();
const TENANT = randomUUID();

/**
 * A database that knows one application and takes 50 ms to look it up, counting the look-ups;
 * `deleted` makes look-ups started later find nothing.
 */
function fakeDb() {
  const state = { lookups: 0, deleted: false };
  const db: Db = {
    kind: "pglite",
    async query<R>(sql: string): Promise<R[]> {
      if (sql.includes("from root_principals")) return [];
      if (!sql.includes("from applications")) throw new Error(`unexpected statement: ${sql}`);
      state.lookups++;
      const gone = state.deleted;
      await new Promise((r) => setTimeout(r, 50));
      if (gone) return [];
      return [{ id: APP, tenant_id: TENANT, display_name: "app", roles: [], custom_claims: {} } as R];
    },
    transaction: () => Promise.reject(new Error("no transactions here")),
    ping: async () => undefined,
    close: async () => undefined,
  };
  return { db, state };
}

async function setup() {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const fake = fakeDb();
  const jwk = await exportJWK(publicKey);
  const keys = {
    history: async () => [{ kid: "k", alg: "RS256", public_jwk: jwk, retired_at: null }],
  } as unknown as Ctx["keys"];
  const auth = new Authenticator({ baseUrl: BASE, db: fake.db, keys });
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "RS256", kid: "k" })
    .setIssuer(appIdpIssuer(BASE))
    .setAudience(tokenAudience(BASE))
    .setSubject(APP)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(privateKey);
  return { auth, header: `Bearer ${token}`, ...fake };
}

/** `n` requests at once. */
function burst(s: Awaited<ReturnType<typeof setup>>, n: number) {
  return Promise.allSettled(Array.from({ length: n }, () => s.auth.authenticate(s.header)));
}

afterEach(() => {
  vi.useRealTimers();
});

describe("Authenticator: the principal's look-up", () => {
  it("is shared by the requests that arrive with a new token together", async () => {
    const s = await setup();
    const answers = await burst(s, 32);
    expect(answers.every((a) => a.status === "fulfilled" && a.value.id === APP)).toBe(true);
    expect(s.state.lookups).toBe(1);
  });

  it("is made once a second, however many requests find it stale", async () => {
    const s = await setup();
    await burst(s, 1);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    await burst(s, 32);
    expect(s.state.lookups).toBe(1);
    vi.setSystemTime(Date.now() + 1001);
    const answers = await burst(s, 32);
    expect(answers.every((a) => a.status === "fulfilled")).toBe(true);
    expect(s.state.lookups).toBe(2);
  });

  it("refuses every waiting request when the application is gone, and keeps no answer", async () => {
    const s = await setup();
    await burst(s, 1);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    vi.setSystemTime(Date.now() + 1001);
    s.state.deleted = true;
    const answers = await burst(s, 8);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill("rejected"));
    expect(s.state.lookups).toBe(2);
    // The failure is not cached: the next request looks again.
    await burst(s, 1);
    expect(s.state.lookups).toBe(3);
  });

  it("does not keep a look-up that straddles an invalidation", async () => {
    const s = await setup();
    const first = s.auth.authenticate(s.header);
    await vi.waitFor(() => expect(s.state.lookups).toBe(1));
    // The application is deleted while its look-up is under way, and this process invalidates.
    s.auth.invalidate();
    s.state.deleted = true;
    // The straddling look-up answers the request that waited for it…
    await expect(first).resolves.toMatchObject({ id: APP });
    // …but the next request looks again, and finds the application gone.
    const after = await burst(s, 1);
    expect(after[0]?.status).toBe("rejected");
    expect(s.state.lookups).toBe(2);
  });
});

describe("Authenticator: the last header answered", () => {
  it("keeps no principal past an invalidation: the next request looks it up again", async () => {
    const s = await setup();
    await burst(s, 2);
    expect(s.state.lookups).toBe(1);
    s.state.deleted = true;
    s.auth.invalidate();
    const after = await burst(s, 1);
    expect(after[0]?.status).toBe("rejected");
    expect(s.state.lookups).toBe(2);
  });

  it("answers only the very same header, and refuses it once the token has expired", async () => {
    const s = await setup();
    await burst(s, 1);
    // Another spelling of the same token is parsed and finds the same entry: no new look-up.
    await expect(s.auth.authenticate(`bearer  ${s.header.slice(7)} `)).resolves.toMatchObject({ id: APP });
    await expect(s.auth.authenticate(`${s.header}x`)).rejects.toThrow();
    await expect(s.auth.authenticate(s.header)).resolves.toMatchObject({ id: APP });
    expect(s.state.lookups).toBe(1);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 3601 * 1000 });
    await expect(s.auth.authenticate(s.header)).rejects.toThrow(/expired/);
  });
});

describe("Authenticator: the caller at hand (`cached`, the route gate's promise-free path)", () => {
  it("is the last header's principal while it is fresh, and nothing else", async () => {
    const s = await setup();
    expect(s.auth.cached(s.header)).toBeUndefined(); // never answered
    await burst(s, 1);
    expect(s.auth.cached(s.header)).toMatchObject({ id: APP });
    expect(s.auth.cached(`${s.header}x`)).toBeUndefined(); // another header
    expect(s.auth.cached(undefined)).toBeUndefined();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    vi.setSystemTime(Date.now() + 1000);
    expect(s.auth.cached(s.header)).toBeUndefined(); // the principal is a second old
    await burst(s, 1);
    expect(s.auth.cached(s.header)).toMatchObject({ id: APP });
    s.auth.invalidate();
    expect(s.auth.cached(s.header)).toBeUndefined(); // a change in this process
    await burst(s, 1);
    expect(s.auth.cached(s.header)).toMatchObject({ id: APP });
    vi.setSystemTime(Date.now() + 3601 * 1000);
    expect(s.auth.cached(s.header)).toBeUndefined(); // the token has expired
    expect(s.state.lookups).toBe(3);
  });
});
