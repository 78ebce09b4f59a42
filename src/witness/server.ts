import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { mlDsa44Cosign, mlDsa44Keys } from "../core/log/ml-dsa-sign.js";
import { cosign, ed25519PublicKey, formatVkey, signatureLine } from "../core/log/note-sign.js";
import { judgeAddCheckpoint } from "../core/log/witness.js";
import { COSIGNATURE_V1 } from "../formats/tlog/keys.js";
import { ML_DSA_44 } from "../formats/tlog/ml-dsa.js";
import type { NoteVerifier } from "../formats/tlog/note.js";
import { verifierFromVkey } from "../formats/tlog/vkey-verifier.js";
import type { WitnessState } from "./state.js";

const MAX_BODY = 64 * 1024;

export interface WitnessOptions {
  name: string;
  state: WitnessState;
  /** The vkeys of the logs it witnesses; each key's name is its log's origin. */
  logs: string[];
  log: Logger;
  now?: () => number;
  /** Its cosignature type: Ed25519 (cosignature/v1, 0x04, the default) or ML-DSA-44 (0x06). */
  keyType?: "ed25519" | "ml-dsa-44";
}

export interface RunningWitness {
  url: string;
  vkey: string;
  server: Server;
  close(): Promise<void>;
}

// A body past MAX_BODY is still read (and dropped) up to this, so the client can read our 413:
// closing while it still sends would reset the connection and lose the answer. Past it, or past
// the drain's deadline, the connection is cut.
const MAX_DRAIN = 16 * 1024 * 1024;
const DRAIN_MS = 10_000;

/** The body as text, or undefined when it is over MAX_BODY (then drained, to answer 413). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const declared = Number(req.headers["content-length"] ?? 0);
    const overflow = () => {
      chunks.length = 0;
      if (size > MAX_DRAIN || declared > MAX_DRAIN) {
        req.destroy();
        resolve(undefined);
      } else timer ??= setTimeout(() => req.destroy(), DRAIN_MS).unref();
    };
    if (declared > MAX_BODY) overflow();
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) overflow();
      else chunks.push(c);
    });
    req.on("end", () => {
      clearTimeout(timer);
      resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", reject);
    // Cut mid-body: nothing is answered (answer() skips a destroyed response).
    req.on("close", () => resolve(undefined));
  });
}

function answer(res: ServerResponse, status: number, body: string, type = "text/plain; charset=utf-8"): void {
  if (res.destroyed) return;
  res.writeHead(status, {
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    "x-content-type-options": "nosniff",
    ...(status === 413 ? { connection: "close" } : {}),
  });
  res.end(body);
}

/**
 * A C2SP tlog-witness: `POST /add-checkpoint` cosigns (cosignature/v1, or ML-DSA-44) a checkpoint of a known
 * log that is consistent with the last one it cosigned for that origin, persisting it before
 * answering; `GET /<sha256(origin)>/checkpoint` serves that last cosigned checkpoint. Requests
 * are judged one at a time, so a check and its persisted update are atomic.
 */
export async function startWitness(
  opts: WitnessOptions,
  listen: { host: string; port: number },
): Promise<RunningWitness> {
  const pq = opts.keyType === "ml-dsa-44";
  const seed = opts.state.seed(pq ? "ml-dsa-44" : "ed25519");
  const vkey = pq
    ? formatVkey(opts.name, ML_DSA_44, mlDsa44Keys(seed).publicKey)
    : formatVkey(opts.name, COSIGNATURE_V1, ed25519PublicKey(seed));
  const byOrigin = new Map<string, NoteVerifier[]>();
  for (const k of opts.logs) {
    const v = verifierFromVkey(k);
    byOrigin.set(v.name, [...(byOrigin.get(v.name) ?? []), v]);
  }
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  let turn: Promise<unknown> = Promise.resolve();

  const addCheckpoint = (body: string): { status: number; body: string; type?: string } => {
    const verdict = judgeAddCheckpoint(
      body,
      (o) => byOrigin.get(o),
      (o) => opts.state.latest(o),
    );
    if (verdict.status === 409) return { status: 409, body: `${verdict.size}\n`, type: "text/x.tlog.size" };
    if (verdict.status !== 200) {
      if (verdict.status === 422) opts.log.warn({ request: body }, `refused: ${verdict.message}`);
      return { status: verdict.status, body: `${verdict.message}\n` };
    }
    const sig = pq
      ? mlDsa44Cosign(opts.name, seed, verdict.text, now())
      : cosign(opts.name, seed, verdict.text, now());
    const line = signatureLine(sig);
    const note = body.slice(body.indexOf("\n\n") + 2);
    opts.state.save(verdict.checkpoint.origin, `${note}${line}`);
    opts.log.info({ origin: verdict.checkpoint.origin, size: verdict.checkpoint.size }, "cosigned");
    return { status: 200, body: line };
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "POST" && path === "/add-checkpoint") {
      void readBody(req).then(
        (body) => {
          if (body === undefined) return answer(res, 413, "request too large\n");
          const run = turn.then(() => addCheckpoint(body));
          turn = run.catch(() => undefined);
          run.then(
            (r) => answer(res, r.status, r.body, r.type),
            (err: unknown) => {
              opts.log.error({ err }, "add-checkpoint failed");
              answer(res, 500, "internal error\n");
            },
          );
        },
        () => answer(res, 400, "unreadable request\n"),
      );
      return;
    }
    const m = /^\/([0-9a-f]{64})\/checkpoint$/.exec(path);
    if (req.method === "GET" && m) {
      const origin = [...byOrigin.keys()].find((o) => createHash("sha256").update(o).digest("hex") === m[1]);
      const note = origin === undefined ? undefined : opts.state.note(origin);
      return note === undefined
        ? answer(res, 404, "no checkpoint cosigned for this log\n")
        : answer(res, 200, note);
    }
    answer(res, 404, "not found\n");
  });
  await new Promise<void>((resolve) => server.listen(listen.port, listen.host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${listen.host}:${port}`,
    vkey,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
