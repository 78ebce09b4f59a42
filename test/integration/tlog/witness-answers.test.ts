import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cosign, ed25519PublicKey, formatVkey, signatureLine } from "../../../src/core/log/note-sign.js";
import { parseAddCheckpoint } from "../../../src/core/log/witness.js";
import { COSIGNATURE_V1, parseNote } from "../../../src/formats/tlog/index.js";
import { insertCosignature } from "../../../src/store/ledger/tlog-checkpoints.js";
import { until } from "../../helpers/poll.js";
import { tenancyLog } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * Issue 55: witnesses that answer what a witness should not. One cosigns with a valid signature
 * and a time far in the future (`GET …/tlog/witnesses` answered 500 once it had); one answers
 * 307 to another server, which the service followed (the checkpoint went to where it pointed).
 * Both are local stubs that cosign with keys of their own.
 */
interface Stub {
  name: string;
  vkey: string;
  url: string;
  requests: number;
  server: Server;
}

async function stub(
  name: string,
  seed: Uint8Array,
  answer: (req: IncomingMessage, res: ServerResponse, body: string, s: Stub) => void,
): Promise<Stub> {
  const s: Stub = {
    name,
    vkey: formatVkey(name, COSIGNATURE_V1, ed25519PublicKey(seed)),
    url: "",
    requests: 0,
    server: createServer(),
  };
  s.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      s.requests += 1;
      answer(req, res, Buffer.concat(chunks).toString(), s);
    });
  });
  await new Promise<void>((r) => s.server.listen(0, "127.0.0.1", r));
  s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
  return s;
}

/** Answers an add-checkpoint with a valid cosignature by `seed` of `name`, dated `time` (s). */
function cosigning(name: string, seed: Uint8Array, time: () => number) {
  return (_req: IncomingMessage, res: ServerResponse, body: string) => {
    const { note } = parseAddCheckpoint(body);
    const sig = cosign(name, seed, parseNote(note).text, time());
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.end(signatureLine(sig));
  };
}

const FUTURE = "witness.test/future";
const REDIRECTING = "witness.test/redirecting";
const HONEST = "witness.test/honest";
// Past what `Date` can hold (8.64e12 s), still a safe integer: a valid signature all the same.
const FAR_FUTURE_S = 9e12;
const futureSeed = new Uint8Array(randomBytes(32));
const redirectingSeed = new Uint8Array(randomBytes(32));
const honestSeed = new Uint8Array(randomBytes(32));

let s: TestService;
let future: Stub;
let redirecting: Stub;
// Cosigns as a witness should: what the stubs send verifies, and is kept.
let honest: Stub;
// Where the redirect points: it would cosign as the redirecting witness, validly.
let target: Stub;
let tenant: string;
let prefix: string;

beforeAll(async () => {
  future = await stub(
    FUTURE,
    futureSeed,
    cosigning(FUTURE, futureSeed, () => FAR_FUTURE_S),
  );
  target = await stub(
    REDIRECTING,
    redirectingSeed,
    cosigning(REDIRECTING, redirectingSeed, () => Math.floor(Date.now() / 1000)),
  );
  redirecting = await stub(REDIRECTING, redirectingSeed, (req, res) => {
    res.writeHead(307, { location: `${target.url}${req.url}` });
    res.end();
  });
  honest = await stub(
    HONEST,
    honestSeed,
    cosigning(HONEST, honestSeed, () => Math.floor(Date.now() / 1000)),
  );
  s = await startTestService({
    ARCHIVIST_WITNESSES: [future, redirecting, honest].map((w) => `${w.vkey} ${w.url}`).join("; "),
    ARCHIVIST_WITNESS_QUORUM: "1",
  });
  const token = await s.token(s.a);
  ({ tenant, prefix } = await tenancyLog(s, token, "witnessed"));
  await until(async () => {
    await s.service.workers.flush();
    if (future.requests === 0 || redirecting.requests === 0) return undefined;
    const note = await (await s.api(`${prefix}/checkpoint`)).text();
    return parseNote(note).signatures.some((x) => x.name === HONEST) ? true : undefined;
  }, 60_000);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  for (const x of [future, redirecting, target, honest]) {
    x?.server.closeAllConnections();
    await new Promise((r) => x?.server.close(r));
  }
});

type Listed = { witnesses: Array<{ name: string; last_cosigned_size: number; last_cosigned_at: string }> };

describe("witnesses that answer what a witness should not", () => {
  it("keeps no cosignature dated far ahead of its clock, and the witness list still answers", async () => {
    const res = await s.api(`${prefix}/witnesses`);
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as Listed;
    expect(body.witnesses.find((w) => w.name === FUTURE)).toMatchObject({
      last_cosigned_size: 0,
      last_cosigned_at: "",
    });
    const kept = body.witnesses.find((w) => w.name === HONEST);
    expect(kept?.last_cosigned_size).toBeGreaterThan(0);
    expect(Date.parse(kept?.last_cosigned_at ?? "")).toBeGreaterThan(Date.now() - 3_600_000);
    expect(
      parseNote(await (await s.api(`${prefix}/checkpoint`)).text()).signatures.map((x) => x.name),
    ).not.toContain(FUTURE);
  });

  it("answers a stored cosignature whose time RFC 3339 cannot write, with its size and no time", async () => {
    // As one kept before such cosignatures were refused.
    await insertCosignature(s.service.ctx.db, tenant, 1, {
      witness: FUTURE,
      signature_line: "— witness.test/future AAAA",
      timestamp_s: FAR_FUTURE_S,
    });
    const res = await s.api(`${prefix}/witnesses`);
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as Listed;
    expect(body.witnesses.find((w) => w.name === FUTURE)).toMatchObject({
      last_cosigned_size: 1,
      last_cosigned_at: "",
    });
  });

  it("follows no redirect of a witness: the checkpoint never goes where it points", async () => {
    expect(redirecting.requests).toBeGreaterThan(0);
    expect(target.requests).toBe(0);
    const body = (await (await s.api(`${prefix}/witnesses`)).json()) as Listed;
    expect(body.witnesses.find((w) => w.name === REDIRECTING)?.last_cosigned_size).toBe(0);
  });
});
