import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { entryWords } from "../../../src/formats/mmr/indices.js";
import { verifyRecordReceipt } from "../../../src/index.js";
import { registerConserverApplication } from "../access/application.js";
import { MemoryDeadLetterStore } from "../dead-letters/delivery-store.js";
import type { DeliveryJob } from "../delivery/job.js";
import { TokenSource } from "../delivery/token-source.js";
import { startDeliveryWorker } from "../delivery/worker.js";
import { ConserverError } from "../errors.js";
import * as archivistLink from "../links/archivist.js";
import type { LinkContext } from "../links/types.js";
import { createQueue } from "../queue/factory.js";
import { MemoryVconStore } from "../store/memory-store.js";
import { hashVcon, parseVcon, requireVconUuid, type VconDocument } from "../vcon.js";
import { startDemoService } from "./embedded-service.js";
import { progressBar } from "./progress.js";
import { DemoReader, poll } from "./receipts.js";
import { deleteRedisPrefix } from "./redis-cleanup.js";
import { demoVconsDir } from "./source-dir.js";

interface Sample {
  file: string;
  doc: VconDocument;
  uuid: string;
  payload: string;
}

function samplesDir(): string {
  return process.env.VCON_DIR ?? demoVconsDir();
}

function loadSamples(dir: string): Sample[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => {
      const doc = parseVcon(new Uint8Array(readFileSync(join(dir, file))));
      return { file, doc, uuid: requireVconUuid(doc), payload: hashVcon(doc, "python-json") };
    });
}

/** Runs the archivist link on each sample in turn (forms of one vCon share its uuid, so one at a time). */
async function sendAll(samples: Sample[], svc: Target, ctx: LinkContext & { store: MemoryVconStore }) {
  const options = {
    vcon_operation: "created",
    hash_mode: "python-json",
    // As conserver.example.yml: asset-free events are the administrators', and the demo delivers
    // as a conserver's application does.
    asset_free: false,
    backend: { url: svc.url, client_id: svc.clientId, client_secret: svc.clientSecret },
  };
  for (const s of samples) {
    ctx.store.set(s.uuid, s.doc);
    await archivistLink.run(s.uuid, "demo_archivist", options, ctx);
  }
}

/** Waits for one sample's event to be committed and sealed, then verifies its receipt offline. */
async function verifyOne(
  reader: DemoReader,
  keys: Awaited<ReturnType<DemoReader["keys"]>>,
  s: Sample,
  deadLetters: MemoryDeadLetterStore,
) {
  const events = await poll(
    async () => {
      // A refused delivery is never recorded: stop waiting, the closing lines say why.
      if ((await deadLetters.size()) > 0) throw new Error(`a delivery was refused (${s.file})`);
      return reader.findEvents(s.uuid, s.payload);
    },
    20_000,
    `event of ${s.file}`,
  );
  const event = events[0] as (typeof events)[number];
  if (events.length !== 1)
    return {
      identity: event.identity,
      verdict: { ok: false as const, reason: `recorded ${events.length} times` },
    };
  const committed = await poll(() => reader.committed(event.identity), 20_000, `commit of ${s.file}`);
  const receipt = await poll(() => reader.receipt(event.identity), 20_000, `receipt of ${s.file}`);
  return { identity: event.identity, verdict: verifyRecordReceipt(committed, receipt, keys) };
}

/** The service the demo records into, and the application it delivers as. */
interface Target {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Where the console's sign-in credentials are, for the closing line. */
  signIn: string;
  stop(): Promise<void>;
}

const DEMO_USAGE = `usage: npm run demo [-- --port <n> | --url <service> [--credentials <file>] [--client-id <id> --client-secret <secret>]]
Without --url: a service of its own, on a temporary folder, gone when the demo ends; on --port
(as \`archivist serve --port\`), else on a port the system picks.
With --url: into that running service, where the records stay (for /console and /verify).
It delivers as a conserver does: as the application of --client-id/--client-secret, else
ARCHIVIST_CLIENT_ID/ARCHIVIST_CLIENT_SECRET (one with the conserver's access policy, as the
README's walk-through makes); else it registers such an application and its policy with the
owner's credentials file (default data/bootstrap.json, which the service's first start writes).`;

/** The owner's client credentials from a bootstrap file. */
function ownerCredentials(file: string): { clientId: string; clientSecret: string } {
  if (!existsSync(file))
    throw new Error(
      `no credentials: pass --client-id and --client-secret, or --credentials <file> (${file} does not exist)`,
    );
  const creds = JSON.parse(readFileSync(file, "utf8")) as { client_id?: string; client_secret?: string };
  if (!creds.client_id || !creds.client_secret)
    throw new Error(`${file} holds no client_id and client_secret`);
  return { clientId: creds.client_id, clientSecret: creds.client_secret };
}

/**
 * The conserver's own application, registered with the owner's credentials and given the
 * conserver's access policy (what the README's steps 2 and 2b do with curl): the demo never
 * delivers as the owner, so it meets the refusals a user's conserver would.
 */
async function conserverApplication(
  url: string,
  owner: { clientId: string; clientSecret: string },
  out: (line: string) => void,
): Promise<{ clientId: string; clientSecret: string }> {
  const token = await new TokenSource({ url, ...owner }, fetch).get();
  const app = await registerConserverApplication({ url, token, displayName: "vCon demo conserver" });
  out(`registered ${app.application} with ${app.policy} (AssetCreator, RecordEvidence on vCon assets)`);
  return app;
}

/** A running service named by `--url`, delivered to as the flags', the environment's or a new application. */
async function runningTarget(
  v: { url: string; credentials?: string; "client-id"?: string; "client-secret"?: string },
  out: (line: string) => void,
): Promise<Target> {
  const url = v.url.replace(/\/+$/, "");
  const clientId = v["client-id"] ?? process.env.ARCHIVIST_CLIENT_ID;
  const clientSecret = v["client-secret"] ?? process.env.ARCHIVIST_CLIENT_SECRET;
  if (clientId && clientSecret)
    return { url, clientId, clientSecret, signIn: `as client ${clientId}`, stop: async () => undefined };
  const file = v.credentials ?? "data/bootstrap.json";
  const app =
    (await savedApplication(url, file, out)) ??
    (await conserverApplication(url, ownerCredentials(file), out));
  // Kept beside the owner's credentials (mode 0600): the next run delivers as the same application,
  // so its access policy is registered once, not once a run; the interface records a policy's
  // creation in the trail of every asset it applies to, every vCon's here.
  writeFileSync(
    savedApplicationFile(file),
    JSON.stringify({ url, client_id: app.clientId, client_secret: app.clientSecret }),
    {
      mode: 0o600,
    },
  );
  return { url, ...app, signIn: `with the credentials of ${file}`, stop: async () => undefined };
}

/** Where a `--url` run keeps the conserver application it registered: beside the owner's credentials file. */
const savedApplicationFile = (credentials: string) => join(dirname(credentials), "demo-conserver.json");

/** The conserver application an earlier `--url` run registered on this service, if its credentials still get a token. */
async function savedApplication(
  url: string,
  credentials: string,
  out: (line: string) => void,
): Promise<{ clientId: string; clientSecret: string } | undefined> {
  const file = savedApplicationFile(credentials);
  if (!existsSync(file)) return undefined;
  const saved = JSON.parse(readFileSync(file, "utf8")) as {
    url?: string;
    client_id?: string;
    client_secret?: string;
  };
  if (saved.url !== url || !saved.client_id || !saved.client_secret) return undefined;
  const app = { clientId: saved.client_id, clientSecret: saved.client_secret };
  try {
    await new TokenSource({ url, ...app }, fetch).get();
  } catch {
    return undefined;
  }
  out(`delivering as ${app.clientId}, the conserver application an earlier run registered (${file})`);
  return app;
}

/** A service of the demo's own on `port`, delivered to as a conserver application its owner registers. */
async function ownTarget(port: number, out: (line: string) => void): Promise<Target> {
  const svc = await startDemoService(port);
  out(`the demo's service answers on ${svc.url} until the demo ends`);
  try {
    const app = await conserverApplication(svc.url, svc, out);
    return { url: svc.url, ...app, signIn: "", stop: () => svc.stop() };
  } catch (err) {
    await svc.stop();
    throw err;
  }
}

/** A command line the demo cannot run as typed: said on stderr, exit status 64 (the CLI's usage status). */
class DemoUsageError extends ConserverError {
  constructor(message: string) {
    super("DEMO_USAGE", message);
  }
}

/** The port of the demo's own service: `--port`, as `archivist serve` takes it; 0 lets the system pick. */
function demoPort(v: { port?: string | undefined; url?: string | undefined }): number {
  if (v.port === undefined) return 0;
  if (v.url !== undefined)
    throw new DemoUsageError(
      "--port is the port of the demo's own service; with --url it records into that one",
    );
  const port = Number(v.port);
  if (!/^\d+$/.test(v.port) || port > 65535)
    throw new DemoUsageError(`--port takes a port number (0 to 65535), got "${v.port}"`);
  return port;
}

/** `npm run demo`: fixture vCons → archivist link → queue → delivery worker → service → verified receipts. */
export async function runDemo(
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  args: string[] = [],
): Promise<number> {
  const { values: v } = parseArgs({
    args,
    options: {
      url: { type: "string" },
      port: { type: "string" },
      credentials: { type: "string" },
      "client-id": { type: "string" },
      "client-secret": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (v.help) {
    out(DEMO_USAGE);
    return 0;
  }
  const port = demoPort(v);
  const samples = loadSamples(samplesDir());
  const redisUrl = process.env.REDIS_URL;
  const queueText = redisUrl ? `BullMQ on ${redisUrl}` : "in-process";
  out(
    v.url
      ? `recording into ${v.url.replace(/\/+$/, "")} (the records stay); queue: ${queueText}`
      : `starting the service (embedded database, temporary folder); queue: ${queueText}`,
  );
  const svc: Target = v.url ? await runningTarget({ ...v, url: v.url }, out) : await ownTarget(port, out);
  const log = pino({ level: "warn" });
  const prefix = `demo-${randomBytes(4).toString("hex")}`;
  const queue = createQueue<DeliveryJob>("demo-delivery", {
    ...(redisUrl ? { redisUrl } : {}),
    prefix,
    attempts: 5,
    backoff: { type: "exponential", delayMs: 100, maxDelayMs: 2000, jitter: 0.5 },
    log,
  });
  const deadLetters = new MemoryDeadLetterStore();
  const worker = startDeliveryWorker({ queue, deadLetters, log });
  const tokens = new TokenSource(
    { url: svc.url, clientId: svc.clientId, clientSecret: svc.clientSecret },
    fetch,
  );
  const reader = new DemoReader(svc.url, () => tokens.get());
  let failures = 0;
  try {
    await sendAll(samples, svc, {
      store: new MemoryVconStore(),
      log,
      defaultHashMode: "python-json",
      deliveryQueue: queue,
    });
    const keys = await reader.keys();
    for (const [i, s] of samples.entries()) {
      const { identity, verdict } = await verifyOne(reader, keys, s, deadLetters);
      if (!verdict.ok) failures++;
      const result = verdict.ok
        ? `receipt verified (${entryWords(verdict.mmrIndex)})`
        : `RECEIPT FAILED: ${verdict.reason}`;
      out(
        `${progressBar(i + 1, samples.length)} ${s.doc.form.padEnd(9)} vcon://${s.uuid} ${s.payload.slice(0, 12)}… ${identity} ${result}`,
      );
    }
  } finally {
    // A refused delivery waits in the demo's in-process store, gone when it ends: say so and why.
    const failed = await deadLetters.list();
    for (const d of failed) out(`dead-lettered ${d.id}: ${d.reason}`);
    if (failed.length) out(`${failed.length} delivery job(s) dead-lettered (in the demo's in-process store)`);
    await worker.close();
    await svc.stop();
    if (redisUrl) await deleteRedisPrefix(redisUrl, prefix);
  }
  out(
    failures
      ? `${failures} receipt(s) did not verify`
      : `all ${samples.length} vCon events recorded once and verified`,
  );
  if (v.url && !failures)
    out(`see them at ${svc.url}/console (sign in ${svc.signIn}), and check a vCon at ${svc.url}/verify`);
  return failures ? 1 : 0;
}

// Run when executed (`node dist/plugins/conserver/demo/main.js`), not when imported by a test.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runDemo(undefined, process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
      // Usage errors as the CLI's: parseArgs' own (an unknown option) and the demo's, 64.
      const code = (err as { code?: unknown } | null)?.code;
      process.exitCode =
        err instanceof DemoUsageError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_"))
          ? 64
          : 1;
    },
  );
}
