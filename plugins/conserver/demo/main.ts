import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { verifyRecordReceipt } from "../../../src/index.js";
import { MemoryDeadLetterStore } from "../dead-letters/delivery-store.js";
import type { DeliveryJob } from "../delivery/job.js";
import { TokenSource } from "../delivery/token-source.js";
import { startDeliveryWorker } from "../delivery/worker.js";
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
    asset_free: true,
    backend: { url: svc.url, client_id: svc.clientId, client_secret: svc.clientSecret },
  };
  for (const s of samples) {
    ctx.store.set(s.uuid, s.doc);
    await archivistLink.run(s.uuid, "demo_archivist", options, ctx);
  }
}

/** Waits for one sample's event to be committed and sealed, then verifies its receipt offline. */
async function verifyOne(reader: DemoReader, keys: Awaited<ReturnType<DemoReader["keys"]>>, s: Sample) {
  const events = await poll(() => reader.findEvents(s.uuid, s.payload), 20_000, `event of ${s.file}`);
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
  stop(): Promise<void>;
}

const DEMO_USAGE = `usage: npm run demo [-- --url <service> [--credentials <file>] [--client-id <id> --client-secret <secret>]]
Without --url: a service of its own, on a temporary folder, gone when the demo ends.
With --url: into that running service, where the records stay (for /console and /verify); as the
application of --client-id/--client-secret, else ARCHIVIST_CLIENT_ID/ARCHIVIST_CLIENT_SECRET, else
the credentials file (default data/bootstrap.json, which the service's first start writes).`;

/** A running service named by `--url`, with the credentials the flags, the environment or the file give. */
function runningTarget(v: {
  url: string;
  credentials?: string;
  "client-id"?: string;
  "client-secret"?: string;
}): Target {
  let clientId = v["client-id"] ?? process.env.ARCHIVIST_CLIENT_ID;
  let clientSecret = v["client-secret"] ?? process.env.ARCHIVIST_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    const file = v.credentials ?? "data/bootstrap.json";
    if (!existsSync(file))
      throw new Error(
        `no credentials: pass --client-id and --client-secret, or --credentials <file> (${file} does not exist)`,
      );
    const creds = JSON.parse(readFileSync(file, "utf8")) as { client_id?: string; client_secret?: string };
    if (!creds.client_id || !creds.client_secret)
      throw new Error(`${file} holds no client_id and client_secret`);
    clientId = creds.client_id;
    clientSecret = creds.client_secret;
  }
  return { url: v.url.replace(/\/+$/, ""), clientId, clientSecret, stop: async () => undefined };
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
  const samples = loadSamples(samplesDir());
  const redisUrl = process.env.REDIS_URL;
  const queueText = redisUrl ? `BullMQ on ${redisUrl}` : "in-process";
  const svc: Target = v.url ? runningTarget({ ...v, url: v.url }) : await startDemoService();
  out(
    v.url
      ? `recording into ${svc.url} (the records stay); queue: ${queueText}`
      : `starting the service (embedded database, temporary folder); queue: ${queueText}`,
  );
  const log = pino({ level: "warn" });
  const prefix = `demo-${randomBytes(4).toString("hex")}`;
  const queue = createQueue<DeliveryJob>("demo-delivery", {
    ...(redisUrl ? { redisUrl } : {}),
    prefix,
    attempts: 5,
    backoff: { type: "exponential", delayMs: 100, maxDelayMs: 2000, jitter: 0.5 },
    log,
  });
  const worker = startDeliveryWorker({ queue, deadLetters: new MemoryDeadLetterStore(), log });
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
      const { identity, verdict } = await verifyOne(reader, keys, s);
      if (!verdict.ok) failures++;
      const result = verdict.ok
        ? `receipt verified (mmr ${verdict.mmrIndex})`
        : `RECEIPT FAILED: ${verdict.reason}`;
      out(
        `${progressBar(i + 1, samples.length)} ${s.doc.form.padEnd(9)} vcon://${s.uuid} ${s.payload.slice(0, 12)}… ${identity} ${result}`,
      );
    }
  } finally {
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
    out(
      `see them at ${svc.url}/console (signed in as client ${svc.clientId}), and check a vCon at ${svc.url}/verify`,
    );
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
      process.exitCode = 1;
    },
  );
}
