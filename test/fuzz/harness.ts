import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { plainApplication, startTestService, type TestService } from "../helpers/service.js";

/**
 * The fuzz suite's settings: `FUZZ_RUNS` inputs per property and `FUZZ_SEED` (CI runs the
 * defaults, a fixed seed and a budget of about a minute per engine; `npm run fuzz` more).
 */
export const FUZZ = {
  runs: Number(process.env.FUZZ_RUNS ?? 40),
  seed: Number(process.env.FUZZ_SEED ?? 20261124),
};

/** Deadlines the service runs with here; a request not answered by `HANG_MS` is a hang. */
const BODY_TIMEOUT_MS = 2000;
const HANG_MS = 15_000;

/** Inputs tried and invariants broken, summed over the run (written to FUZZ_TALLY_FILE when set). */
const tally = { inputs: 0, fiveXX: 0, hangs: 0, crashes: 0, stored: 0 };

process.on("uncaughtException", () => {
  tally.crashes++;
});

export interface Fuzzed {
  s: TestService;
  admin: string;
  plain: string;
  hmacKey: Uint8Array;
  tenantA: string;
}

export async function startFuzzed(): Promise<Fuzzed> {
  const s = await startTestService({
    ARCHIVIST_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    ARCHIVIST_REQUEST_TIMEOUT_MS: "10000",
    ARCHIVIST_HEADERS_TIMEOUT_MS: "5000",
    // Small blobs: a multipart bomb stops after 1 MiB inflated.
    ARCHIVIST_BLOB_MAX_BYTES: String(1024 * 1024),
  });
  const admin = await s.token(s.a);
  const plain = (await plainApplication(s, admin)).token;
  const tenancies = await s.service.ctx.db.query<{ id: string; display_name: string }>(
    "select id, display_name from tenancies",
  );
  const tenantA = tenancies.find((t) => t.display_name === s.a.name)?.id ?? "";
  return { s, admin, plain, hmacKey: await s.service.ctx.keys.hmacSecret(), tenantA };
}

// Rows a request can write. The workers write log rows, seals and anchors of their own
// accord, so only the rows of unknown logs count there: a GET must never create one.
const COUNTED = [
  "assets",
  "asset_events",
  "events",
  "blobs",
  "locations",
  "compliance_policies",
  "access_policies",
  "applications",
  "subjects",
  "invites",
  "tlscacertificates",
  "scitt_keys",
];
const SNAPSHOT = `select ${COUNTED.map((t) => `(select count(*) from ${t}) as ${t}`).join(", ")},
  (select count(*) from logs where tenant_id not in (select id from tenancies)) as foreign_logs`;

export async function snapshot(f: Fuzzed): Promise<string> {
  return JSON.stringify((await f.s.service.ctx.db.query(SNAPSHOT))[0]);
}

export interface Attempt {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Further invariants of this answer (headers, say); throws to fail the property. */
  check?: (res: Response) => void;
}

/**
 * Sends one hostile request and checks the invariants: an answer before the deadline, never
 * a 5xx, an error body of the API's shape, and nothing stored by a refused request or a GET.
 * Returns the status, or a description of the broken invariant (the property then fails).
 */
export async function attempt(f: Fuzzed, a: Attempt): Promise<number> {
  tally.inputs++;
  const before = await snapshot(f);
  let res: Response;
  try {
    res = await fetch(`${f.s.url}${a.path}`, {
      method: a.method,
      headers: a.headers ?? {},
      ...(a.body === undefined ? {} : { body: typeof a.body === "string" ? a.body : Buffer.from(a.body) }),
      signal: AbortSignal.timeout(HANG_MS),
      redirect: "manual",
    });
  } catch (err) {
    const e = err as Error;
    if (e.name === "TimeoutError") {
      tally.hangs++;
      throw new Error(`hang: ${a.method} ${a.path.slice(0, 200)}`);
    }
    // The server may close a connection after refusing a body (408, 413): still an answer
    // unless the process is gone, which `stillAlive` checks.
    await stillAlive(f);
    return 0;
  }
  const text = await res.text();
  // Every answer is what its content-type says: a browser never sniffs one into a page.
  if (res.headers.get("x-content-type-options") !== "nosniff")
    throw new Error(
      `${res.status} ${a.method} ${a.path.slice(0, 200)} lacks X-Content-Type-Options: nosniff`,
    );
  a.check?.(res);
  if (res.status >= 500) {
    tally.fiveXX++;
    throw new Error(`${res.status} ${a.method} ${a.path.slice(0, 200)}: ${text.slice(0, 300)}`);
  }
  if (res.status >= 400 && (res.headers.get("content-type") ?? "").startsWith("application/json")) {
    const e = JSON.parse(text) as Record<string, unknown>;
    const grpc = typeof e.code === "number" && typeof e.message === "string" && Array.isArray(e.details);
    const scitt = typeof e.type === "string" && typeof e.detail === "string";
    if (!grpc && !scitt) throw new Error(`error body of another shape: ${text.slice(0, 200)}`);
  }
  if (res.status >= 400 || a.method === "GET") {
    const after = await snapshot(f);
    if (after !== before) {
      tally.stored++;
      throw new Error(
        `${res.status} ${a.method} ${a.path.slice(0, 200)} stored something: ${before} → ${after}`,
      );
    }
  }
  return res.status;
}

/** The service still answers, and no partial upload is left behind once uploads settle. */
export async function stillAlive(f: Fuzzed): Promise<void> {
  const res = await fetch(`${f.s.url}/healthz`, { signal: AbortSignal.timeout(HANG_MS) }).catch(
    () => undefined,
  );
  if (res?.status !== 200) {
    tally.crashes++;
    throw new Error("the service stopped answering");
  }
}

export async function noPartialFiles(f: Fuzzed): Promise<string[]> {
  const dir = join(f.s.dataDir, "blobs", "tmp");
  for (let i = 0; i < 50; i++) {
    let left: string[] = [];
    try {
      left = readdirSync(dir);
    } catch {
      return [];
    }
    if (left.length === 0) return [];
    await new Promise((r) => setTimeout(r, 100));
  }
  return readdirSync(dir);
}

export function writeTally(label: string): void {
  const line = JSON.stringify({ label, engine: process.env.TEST_DB, ...FUZZ, ...tally });
  console.log(`fuzz tally ${line}`);
  if (process.env.FUZZ_TALLY_FILE) appendFileSync(process.env.FUZZ_TALLY_FILE, `${line}\n`);
}
