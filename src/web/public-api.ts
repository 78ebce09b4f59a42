import { CodedError } from "../core/api/coded-error.js";
import { keysFromKeySet, type PublicKey, type PublicKeyFactory, publicKeyFromJwk } from "../verify/index.js";
import { fetchFailure } from "./fetch-error.js";

/** A record as the public routes return it. */
export type PublicRecord = Record<string, unknown>;

/** A failed look-up: the verdict names it rather than hiding it; `status` when the service answered one. */
export class LookupError extends CodedError<"LOOKUP_FAILED"> {
  readonly code = "LOOKUP_FAILED";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

// Lists stop here: an auditor's look-up is small, and a runaway listing must not hang the page.
const MAX_PAGES = 50;

/** Reads the service's public routes (no token); the same code runs in the CLI and the browser. */
export class PublicApi {
  private keySet: Promise<Map<string, PublicKey>> | undefined;

  constructor(
    readonly base: string,
    // Bound late so the browser's fetch is never called with the wrong `this`.
    private readonly fetcher: (url: string) => Promise<Response> = (url) => fetch(url),
    /**
     * The keys receipts are checked with, when the caller pinned some: from the fetched set
     * (the service's claim) to the pinned one. Unset: the fetched keys as they are.
     */
    private readonly pin?: (fetched: Map<string, PublicKey>) => Map<string, PublicKey>,
    /** How fetched keys are made: portable, unless a Node program passes node:crypto's. */
    private readonly makeKey: PublicKeyFactory = publicKeyFromJwk,
  ) {
    this.base = base.replace(/\/$/, "");
  }

  /** The service's keys as fetched (what it says today), for fingerprints. */
  fetchedKeys(): Promise<Map<string, PublicKey>> {
    this.fetched ??= this.get("/.well-known/scitt-keys").then(({ status, bytes }) => {
      if (status !== 200) throw new LookupError(`GET /.well-known/scitt-keys answered ${status}`, status);
      return keysFromKeySet(bytes, this.makeKey);
    });
    return this.fetched;
  }
  private fetched: Promise<Map<string, PublicKey>> | undefined;

  /** Raw GET: status and body bytes. */
  async get(path: string): Promise<{ status: number; bytes: Uint8Array }> {
    let res: Response;
    try {
      res = await this.fetcher(`${this.base}${path}`);
    } catch (err) {
      throw new LookupError(fetchFailure(`${this.base}${path}`, err));
    }
    return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  /** GET of a JSON document; LookupError unless 2xx. */
  async json<T>(path: string): Promise<T> {
    const { status, bytes } = await this.get(path);
    if (status < 200 || status >= 300) throw new LookupError(`GET ${path} answered ${status}`, status);
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  }

  /** Every item of a listing, following next_page_token, in the order the service returns them. */
  async list(path: string, collection: string): Promise<PublicRecord[]> {
    const out: PublicRecord[] = [];
    let token = "";
    for (let page = 0; page < MAX_PAGES; page++) {
      const sep = path.includes("?") ? "&" : "?";
      const url = token ? `${path}${sep}page_token=${encodeURIComponent(token)}` : path;
      const body = await this.json<Record<string, unknown>>(url);
      const items = body[collection];
      if (Array.isArray(items)) out.push(...(items as PublicRecord[]));
      token = typeof body.next_page_token === "string" ? body.next_page_token : "";
      if (!token) return out;
    }
    throw new LookupError(`${path} has more than ${MAX_PAGES} pages; narrow the look-up`);
  }

  /** The keys receipts are checked with: the pinned ones when the caller pinned any, else the fetched ones. */
  keys(): Promise<Map<string, PublicKey>> {
    this.keySet ??= this.fetchedKeys().then((fetched) => (this.pin ? this.pin(fetched) : fetched));
    return this.keySet;
  }
}
