import { generateKeyPairSync, randomUUID, scrypt } from "node:crypto";
import { availableParallelism } from "node:os";
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

describe("secret checks: half the cores at a time, a bounded wait, then busy", () => {
  type Callback = (err: Error | null, key: Buffer) => void;
  const mock = scrypt as unknown as ReturnType<typeof vi.fn>;
  const slots = Math.max(1, Math.floor(availableParallelism() / 2));

  /** scrypt replaced by one that answers a wrong key a turn later, counting the runs in progress. */
  async function withCountedScrypt<T>(
    fn: () => Promise<T>,
  ): Promise<{ result: T; most: number; calls: number }> {
    let running = 0;
    let most = 0;
    let calls = 0;
    mock.mockImplementation((...args: unknown[]) => {
      calls++;
      running++;
      most = Math.max(most, running);
      const done = args.at(-1) as Callback;
      setImmediate(() => {
        running--;
        done(null, Buffer.alloc(32));
      });
    });
    try {
      const result = await fn();
      return { result, most, calls };
    } finally {
      mock.mockReset();
      mock.mockImplementation((await vi.importActual<typeof import("node:crypto")>("node:crypto")).scrypt);
    }
  }

  const wrongSecrets = (ctx: Ctx, n: number) =>
    Promise.all(
      Array.from({ length: n }, () =>
        guardedIssueToken(ctx, form(known, "wrong"), randomUUID()).then(
          () => "issued",
          (err: { kind?: string }) => err.kind,
        ),
      ),
    );

  it("runs the scrypts of many wrong secrets no more than half the cores at once, each refused 401", async () => {
    const ctx = await ctxOf();
    const { result, most } = await withCountedScrypt(() => wrongSecrets(ctx, slots + 8));
    expect(most).toBe(slots);
    expect(result.every((k) => k === "unauthenticated")).toBe(true);
  });

  it("answers 429, without a scrypt, a check past 64 waiting", async () => {
    const ctx = await ctxOf();
    const { result, calls } = await withCountedScrypt(() => wrongSecrets(ctx, slots + 64 + 5));
    expect(result.filter((k) => k === "rate_limited")).toHaveLength(5);
    expect(result.filter((k) => k === "unauthenticated")).toHaveLength(slots + 64);
    expect(calls).toBe(slots + 64);
  });
});
