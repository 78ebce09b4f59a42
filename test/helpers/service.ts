import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { loadConfig } from "../../src/config.js";
import { type RunningService, startService } from "../../src/server.js";
import { freshPostgresDatabase, testEngine } from "./databases.js";
import { seedPglite } from "./pglite-template.js";

interface TestTenancy {
  name: string;
  clientId: string;
  clientSecret: string;
}

/** A started service on a fresh database of the project's engine, with two provisioned tenancies. */
export interface TestService {
  url: string;
  service: RunningService;
  a: TestTenancy;
  b: TestTenancy;
  dataDir: string;
  token(t: TestTenancy): Promise<string>;
  /** fetch against the service with JSON helpers. */
  api(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  /**
   * Stops the service, runs `between` (on its database, nothing writing), and starts it again on
   * the same database and settings; `url` and `service` are the new one's after, and `token`
   * gives new tokens.
   */
  restart(between?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

const tenancy = (name: string): TestTenancy => ({
  name,
  clientId: randomUUID(),
  clientSecret: `secret-${randomUUID()}`,
});

/** Identity settings of tenancy A in the bootstrap file: a trusted OIDC issuer and its members. */
export interface TestIdentity {
  oidc?: { issuer: string; jwks_url: string };
  members?: Array<{ email: string; display_name?: string; roles?: string[] }>;
}

/** Starts the real HTTP server as users do, with `env` overriding settings. */
export async function startTestService(
  env: Record<string, string> = {},
  quotas: Record<string, number> = {},
  identity: TestIdentity = {},
  /** Fixed tenancy ids (a setting that names a tenancy must know it before the start). */
  ids: { a?: string; b?: string } = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), "archivist-test-"));
  const a = tenancy("Org A");
  const b = tenancy("Org B");
  const bootstrap = join(dataDir, "bootstrap-in.json");
  // Quotas apply to tenancy B only, so A stays unlimited for the other tests of a file.
  const spec = (t: TestTenancy) => ({
    ...((t === a ? ids.a : ids.b) ? { id: t === a ? ids.a : ids.b } : {}),
    display_name: t.name,
    owner: { client_id: t.clientId, client_secret: t.clientSecret },
    members: t === a ? (identity.members ?? []) : [],
    quotas: t === b ? quotas : {},
    ...(t === a && identity.oidc ? { oidc: identity.oidc } : {}),
  });
  writeFileSync(bootstrap, JSON.stringify({ tenancies: [spec(a), spec(b)] }));
  const pgdb = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
  const config = loadConfig(
    {},
    {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ARCHIVIST_BOOTSTRAP_FILE: bootstrap,
      LOG_LEVEL: "silent",
      ARCHIVIST_COMMIT_MAX_DELAY_MS: "50",
      ARCHIVIST_SEAL_INTERVAL_MS: "200",
      ARCHIVIST_ANCHOR_INTERVAL_MS: "400",
      // vitest.config.ts: every test service runs with the transaction guard, on both engines.
      ARCHIVIST_TRANSACTION_GUARD: process.env.ARCHIVIST_TRANSACTION_GUARD ?? "on",
      ...(pgdb ? { DATABASE_URL: pgdb.url } : {}),
      ...env,
    },
  );
  if (config.dataDir === dataDir && !config.databaseUrl) await seedPglite(dataDir);
  let service = await startService(config);
  let url = service.url;
  const tokens = new Map<string, string>();
  const token = async (t: TestTenancy) => {
    const cached = tokens.get(t.clientId);
    if (cached) return cached;
    const res = await fetch(`${url}/archivist/iam/v1/appidp/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: t.clientId,
        client_secret: t.clientSecret,
      }),
    });
    if (res.status !== 200) throw new Error(`token for ${t.name}: ${res.status} ${await res.text()}`);
    const tok = ((await res.json()) as { access_token: string }).access_token;
    tokens.set(t.clientId, tok);
    return tok;
  };
  const api: TestService["api"] = (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("authorization", `Bearer ${init.token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    return fetch(`${url}${path}`, { ...init, headers, body });
  };
  const started: TestService = {
    url,
    service,
    a,
    b,
    dataDir,
    token,
    api,
    async restart(between) {
      await service.close();
      await between?.();
      service = await startService(config);
      url = service.url;
      // The tokens' audience is the base URL, which a new port changes unless `BASE_URL` is set.
      tokens.clear();
      started.service = service;
      started.url = url;
    },
    async stop() {
      await service.close();
      await pgdb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return started;
}

/** A started service (`startTestService`'s arguments) and the tokens of its two tenancies' owners. */
export async function twoTenancies(
  ...args: Parameters<typeof startTestService>
): Promise<{ s: TestService; ta: string; tb: string }> {
  const s = await startTestService(...args);
  return { s, ta: await s.token(s.a), tb: await s.token(s.b) };
}

/**
 * What `start` gives (a service and what a suite made on it), filled in before the suite's tests
 * and its service stopped after: one object the tests read, instead of each file's own variables
 * and hooks.
 */
export function forSuite<T extends { s: TestService }>(
  start: () => Promise<T>,
  hookTimeout?: number,
): Readonly<T> {
  const suite = {} as T;
  beforeAll(async () => {
    Object.assign(suite, await start());
  }, hookTimeout);
  afterAll(() => suite.s?.stop());
  return suite;
}

/** A started service and its first tenancy owner's token. */
async function oneTenancy(): Promise<{ s: TestService; token: string }> {
  const s = await startTestService();
  return { s, token: await s.token(s.a) };
}

/** A suite's service and the first tenancy owner's token, started before its tests and stopped after. */
export function serviceForSuite(): { readonly s: TestService; readonly token: string } {
  return forSuite(oneTenancy);
}

/**
 * A started service, its first tenancy owner's token (`admin`) and a plain application of that
 * tenancy made with `body` (`reader`, `readerId`): the identity access rules are tried on.
 */
export async function adminAndReader(
  body: Record<string, unknown> = { display_name: "reader" },
): Promise<{ s: TestService; admin: string; reader: string; readerId: string }> {
  const s = await startTestService();
  const admin = await s.token(s.a);
  const { clientId: readerId, token: reader } = await plainApplication(s, admin, body);
  return { s, admin, reader, readerId };
}

/**
 * A new application of the tenancy whose administrator token is given, without roles
 * (authenticated, but no administrator): its client id and a token.
 */
export async function plainApplication(
  s: TestService,
  adminToken: string,
  body: Record<string, unknown> = { display_name: "plain" },
): Promise<{ clientId: string; token: string }> {
  const res = await s.api("/archivist/iam/v1/applications", {
    method: "POST",
    token: adminToken,
    json: body,
  });
  const app = (await res.json()) as { client_id: string; credentials: Array<{ secret: string }> };
  const token = await s.token({
    name: String(body.display_name),
    clientId: app.client_id,
    clientSecret: app.credentials[0]?.secret ?? "",
  });
  return { clientId: app.client_id, token };
}
