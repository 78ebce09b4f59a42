import { createHmac, generateKeyPairSync, randomUUID, scrypt, sign } from "node:crypto";
import { availableParallelism } from "node:os";
import { describe, expect, it, vi } from "vitest";
import type { Ctx } from "../../../../src/context.js";
import {
  hashGeneratedSecret,
  hashSecret,
  newSecret,
  verifySecret,
} from "../../../../src/services/identity/secrets.js";
import { guardedIssueToken } from "../../../../src/services/identity/tokens.js";

// Counts scrypt and HMAC runs: how long a refusal takes is how many of each it runs, measured
// without a clock.
vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>();
  return { ...real, scrypt: vi.fn(real.scrypt), createHmac: vi.fn(real.createHmac) };
});
const calls = (f: unknown) => (f as ReturnType<typeof vi.fn>).mock.calls.length;
const runs = () => calls(scrypt);

const known = randomUUID();
const secret = "the-right-secret";
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

/** A store of one application, `known`, whose secret is stored as `hash` says. */
async function ctxOf(hash: (secret: string) => string | Promise<string> = hashSecret): Promise<Ctx> {
  const row = {
    seq: 1,
    id: known,
    tenant_id: randomUUID(),
    display_name: "app",
    custom_claims: {},
    roles: [],
    secret_hash: await hash(secret),
    valid_from: new Date(0),
    valid_until: new Date(Date.now() + 86_400_000),
  };
  return {
    db: { query: async (_sql: string, params: unknown[]) => (params[0] === known ? [row] : []) },
    caches: { verifiedSecrets: new Map() },
    keys: {
      get: async () => ({ kid: "k", sign: async (data: Uint8Array) => sign("sha256", data, privateKey) }),
    },
    baseUrl: "http://127.0.0.1",
  } as unknown as Ctx;
}

const form = (client_id: string, client_secret: string) => ({
  grant_type: "client_credentials",
  client_id,
  client_secret,
});

/** The scrypt and HMAC runs of one refused request (each from its own address, below the limit). */
async function cost(ctx: Ctx, clientId: string, given: string): Promise<{ scrypts: number; hmacs: number }> {
  const [s0, h0] = [runs(), calls(createHmac)];
  await expect(guardedIssueToken(ctx, form(clientId, given), randomUUID())).rejects.toMatchObject({
    kind: "unauthenticated",
  });
  return { scrypts: runs() - s0, hmacs: calls(createHmac) - h0 };
}

describe("a client id can be locked out by anyone: no oracle of which ids exist", () => {
  it("refuses an unknown id, a non-id and a generated secret's wrong guess after the same work: one HMAC, no scrypt", async () => {
    const ctx = await ctxOf(hashGeneratedSecret);
    const one = { scrypts: 0, hmacs: 1 };
    expect(await cost(ctx, randomUUID(), "wrong")).toEqual(one);
    expect(await cost(ctx, "not-an-id", "wrong")).toEqual(one);
    expect(await cost(ctx, known, "wrong")).toEqual(one);
    // The right secret still signs in, and a wrong one after it costs the same.
    await guardedIssueToken(ctx, form(known, secret), randomUUID());
    expect(await cost(ctx, known, "wrong")).toEqual(one);
  });

  it("checks a secret an operator chose (a bootstrap owner's) with scrypt, also after it signed in", async () => {
    const ctx = await ctxOf(hashSecret);
    expect((await cost(ctx, known, "wrong")).scrypts).toBe(1);
    await guardedIssueToken(ctx, form(known, secret), randomUUID());
    expect((await cost(ctx, known, "wrong")).scrypts).toBe(1);
  });
});

describe("generated secrets", () => {
  it("are 256 random bits as 64 lowercase hex digits, as DataTrails' secrets are", () => {
    const made = Array.from({ length: 500 }, newSecret);
    for (const s of made) expect(s).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(made).size).toBe(made.length);
    // The SDK's wrong-secret test: the right secret with its first character made "X".
    for (const s of made) expect(`X${s.slice(1)}`).not.toBe(s);
  });
});

describe("the two ways a secret is stored", () => {
  it("stores a generated secret as a salted HMAC, an operator's with scrypt, and verifies each", async () => {
    const generated = newSecret();
    const fast = hashGeneratedSecret(generated);
    expect(fast).toMatch(/^hmac-sha256\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    // Salted: the same secret is stored differently each time.
    expect(hashGeneratedSecret(generated)).not.toBe(fast);
    const slow = await hashSecret("an operator's choice");
    expect(slow).toMatch(/^scrypt\$16384\$8\$1\$/);
    const none = new Map<string, Buffer>();
    expect(await verifySecret(generated, fast, none)).toBe(true);
    expect(await verifySecret(`${generated}x`, fast, none)).toBe(false);
    expect(await verifySecret(generated.slice(1), fast, none)).toBe(false);
    expect(await verifySecret("an operator's choice", slow, none)).toBe(true);
    expect(await verifySecret("an operator's guess", slow, none)).toBe(false);
    // Damaged stored values refuse rather than throw.
    for (const bad of ["hmac-sha256$", "hmac-sha256$c2FsdA==", "md5$x$y", ""])
      expect(await verifySecret(generated, bad, none)).toBe(false);
  });

  it("matches a known answer: HMAC-SHA-256 keyed by the salt over the secret", async () => {
    // Computed apart from Node (Python's hmac): the stored form is the plain construction.
    const salt = Buffer.alloc(16, 1);
    const want = "T0SJBE9TkrM252N8jPHb+Gkxao7H1fwUYHhKL++Up8s=";
    expect(await verifySecret("s3cret", `hmac-sha256$${salt.toString("base64")}$${want}`, new Map())).toBe(
      true,
    );
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
