import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { badRequest } from "../../errors/api-error.js";

/** What a page token carries: the whole query, so later pages need nothing else. */
export interface PageState {
  /** Route family the token belongs to; a token of another list is refused. */
  route: string;
  /** Tenancy the listing ran in; a token replayed by another tenancy is refused. */
  tenant: string;
  /** Query pairs of the request that started the listing (page_token excluded). */
  query: Array<[string, string]>;
  pageSize: number;
  /** Keyset cursor: the last sequence number returned. */
  after: number;
}

const MAC_BYTES = 16;

const pageTokenBody = z.tuple([
  z.string(),
  z.string(),
  z.array(z.tuple([z.string(), z.string()])).max(1000),
  z.number().int().min(1).max(100_000),
  z.number().int().safe(),
]);

/** Encodes and authenticates a page state: base64url(json) + "." + base64url(hmac). */
export function encodePageToken(state: PageState, key: Uint8Array): string {
  const body = Buffer.from(
    JSON.stringify([state.route, state.tenant, state.query, state.pageSize, state.after]),
  );
  const mac = createHmac("sha256", key).update(body).digest().subarray(0, MAC_BYTES);
  return `${body.toString("base64url")}.${mac.toString("base64url")}`;
}

/** Decodes a page token, refusing (400) anything tampered with, foreign or of another list. */
export function decodePageToken(
  token: string,
  key: Uint8Array,
  expect: { route: string; tenant: string },
): PageState {
  const invalid = () => badRequest("page_token is invalid");
  const [bodyText, macText, extra] = token.split(".");
  if (!bodyText || !macText || extra !== undefined) throw invalid();
  const body = Buffer.from(bodyText, "base64url");
  const mac = Buffer.from(macText, "base64url");
  const want = createHmac("sha256", key).update(body).digest().subarray(0, MAC_BYTES);
  if (mac.length !== MAC_BYTES || !timingSafeEqual(mac, want)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    throw invalid();
  }
  // Checked after the MAC as well: a token signed by an older version, or with a leaked key,
  // must still be a 400, never a 500 further in.
  const r = pageTokenBody.safeParse(parsed);
  if (!r.success) throw invalid();
  const [route, tenant, query, pageSize, after] = r.data;
  if (route !== expect.route || tenant !== expect.tenant) throw invalid();
  return { route, tenant, query, pageSize, after };
}
