import { generateKeyPairSync, randomUUID, scrypt } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import type { Ctx } from "../../../../src/context.js";
import { hashSecret } from "../../../../src/services/identity/secrets.js";
import { guardedIssueToken } from "../../../../src/services/identity/tokens.js";

// Counts scrypt runs: how long a refusal takes is how many it runs, measured without a clock.
vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>();
  return { ...real, scrypt: vi.fn(real.scrypt) };
});
const runs = () => (scrypt as unknown as ReturnType<typeof vi.fn>).mock.calls.length;

const known = randomUUID();
const secret = "the-right-secret";
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

async function ctxOf(): Promise<Ctx> {
  const row = {
    seq: 1,
    id: known,
    tenant_id: randomUUID(),
    display_name: "app",
    custom_claims: {},
    roles: [],
    secret_hash: await hashSecret(secret),
    valid_from: new Date(0),
    valid_until: new Date(Date.now() + 86_400_000),
  };
  return {
    db: { query: async (_sql: string, params: unknown[]) => (params[0] === known ? [row] : []) },
    caches: { verifiedSecrets: new Map() },
    keys: { get: async () => ({ kid: "k", privateKey }) },
    baseUrl: "http://127.0.0.1",
  } as unknown as Ctx;
}

const form = (client_id: string, client_secret: string) => ({
  grant_type: "client_credentials",
  client_id,
  client_secret,
});

/** The scrypt runs of one refused request (each from its own address, below the limit). */
async function cost(ctx: Ctx, clientId: string, given: string): Promise<number> {
  const before = runs();
  await expect(guardedIssueToken(ctx, form(clientId, given), randomUUID())).rejects.toMatchObject({
    kind: "unauthenticated",
  });
  return runs() - before;
}

describe("a client id can be locked out by anyone: no oracle of which ids exist", () => {
  it("refuses an unknown id, a non-id and a known id's wrong secret after the same work: one scrypt", async () => {
    const ctx = await ctxOf();
    await cost(ctx, randomUUID(), "warm-up"); // makes the dummy hash once
    expect(await cost(ctx, randomUUID(), "wrong")).toBe(1);
    expect(await cost(ctx, "not-an-id", "wrong")).toBe(1);
    expect(await cost(ctx, known, "wrong")).toBe(1);
    // After the owner signed in (its secret's digest cached), a wrong secret still costs one.
    await guardedIssueToken(ctx, form(known, secret), randomUUID());
    expect(await cost(ctx, known, "wrong")).toBe(1);
  });
});
