import type { KeyObject } from "node:crypto";
import { readBounded } from "vcon-archivist/client";
import type { Signer } from "../../../src/core/log/sign1.js";
import { nodeSigner } from "../../../src/core/node/crypto.js";
import { eventToStatement } from "../../../src/core/scitt/index.js";
import type { DeliveryBackend } from "../delivery/job.js";
import { type FetchFn, TokenSource } from "../delivery/token-source.js";
import { ConserverError } from "../errors.js";
import type { Registrar, Registration, StatementSigner } from "./types.js";

/** Signs template events as hashed signed statements (ES256) with the issuer's key or signer. */
export function coseStatementSigner(o: {
  issuer: string;
  kid: string;
  key: KeyObject | Signer;
  form?: "private-labels" | "rfc9995";
}): StatementSigner {
  return {
    async sign(attrs) {
      return eventToStatement(
        attrs,
        { issuer: o.issuer, kid: o.kid, ...(o.form ? { form: o.form } : {}) },
        typeof o.key === "function" ? o.key : nodeSigner(o.key),
      );
    },
  };
}

export interface HttpRegistrarOptions {
  /** The transparency service's base URL (SCRAPI `POST {url}/entries`). */
  backend: DeliveryBackend;
  fetch?: FetchFn;
  /** How often to ask for the receipt after a 303 (default 100 ms). */
  pollMs?: number;
  /** How long to wait for the receipt (default 30 s). */
  timeoutMs?: number;
}

// A receipt is a few KiB; a problem's text is cut at 300 characters. Another service's answer
// holds no more of the conserver's memory than that, and waits no longer than REQUEST_TIMEOUT_MS.
const MAX_RECEIPT_BYTES = 1024 * 1024;
const MAX_PROBLEM_BYTES = 64 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;
const receiptOf = (res: Response) => readBounded(res, MAX_RECEIPT_BYTES, "the receipt");

// "Not yet": 302 (this service while sealing), 202/303 (other SCRAPI services), 404/409 (not visible yet).
const PENDING = new Set([202, 302, 303, 404, 409]);

function failed(message: string): ConserverError {
  return new ConserverError("SCITT_REGISTRATION", message);
}

async function problemText(res: Response): Promise<string> {
  const type = res.headers.get("content-type") ?? "";
  // CBOR problem details are binary: only say what they are, the status carries the meaning.
  if (type.includes("cbor")) {
    await res.body?.cancel().catch(() => undefined);
    return type;
  }
  const text = await readBounded(res, MAX_PROBLEM_BYTES, "the problem").catch(() => new Uint8Array());
  return new TextDecoder().decode(text).slice(0, 300);
}

/**
 * Registers statements with a SCRAPI service (this one or another deployment of the API): bearer
 * token by client credentials; 201 carries the receipt, 303 points at `/entries/<id>` to poll.
 */
export class HttpRegistrar implements Registrar {
  private readonly tokens: TokenSource;
  private readonly fetchFn: FetchFn;

  constructor(private readonly o: HttpRegistrarOptions) {
    this.fetchFn = o.fetch ?? fetch;
    this.tokens = new TokenSource(o.backend, this.fetchFn);
  }

  async register(statement: Uint8Array): Promise<Registration> {
    const res = await this.post(statement);
    const location = res.headers.get("location") ?? "";
    const entryId = decodeURIComponent(location.split("/").pop() ?? "");
    if (res.status === 201 && entryId) return { entryId, receipt: await receiptOf(res) };
    if (res.status === 303 && entryId) return { entryId, receipt: await this.pollReceipt(location) };
    throw failed(`POST /entries answered ${res.status}: ${await problemText(res)}`);
  }

  private async post(statement: Uint8Array, retried = false): Promise<Response> {
    const token = await this.tokens.get();
    const res = await this.fetchFn(`${this.o.backend.url}/entries`, {
      method: "POST",
      headers: { "content-type": "application/cose", authorization: `Bearer ${token}` },
      body: Buffer.from(statement),
      redirect: "manual",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (res.status !== 401 || retried) return res;
    // A token revoked or expired early: fetch a new one, once.
    this.tokens.invalidate(token);
    return this.post(statement, true);
  }

  private async pollReceipt(location: string): Promise<Uint8Array> {
    const url = new URL(location, `${this.o.backend.url}/`).toString();
    const end = Date.now() + (this.o.timeoutMs ?? 30_000);
    for (;;) {
      const res = await this.fetchFn(url, {
        headers: { authorization: `Bearer ${await this.tokens.get()}` },
        redirect: "manual",
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      if (res.status === 200) return await receiptOf(res);
      if (!PENDING.has(res.status))
        throw failed(`GET ${location} answered ${res.status}: ${await problemText(res)}`);
      await res.body?.cancel().catch(() => undefined);
      if (Date.now() > end) throw failed(`no receipt at ${location} within ${this.o.timeoutMs ?? 30_000} ms`);
      await new Promise((r) => setTimeout(r, this.o.pollMs ?? 100));
    }
  }
}
