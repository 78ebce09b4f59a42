/**
 * A revocation notice to a processor (docs/vcon-lifecycle.md, §2): the lifecycle draft's "a
 * revocation must reach every processor that has not acknowledged it". The service posts it as a
 * webhook signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, a `whsec_` secret), so a
 * processor checks it with any Standard Webhooks library; a 2xx answer is its acknowledgement.
 */
import { createHmac } from "node:crypto";
import { consentRole, lifecycleOrder } from "../../formats/lifecycle/consent.js";
import { recordAttributes } from "../../formats/lifecycle/vocabulary.js";
import { canonicalSubject } from "../../formats/vcon/subject.js";

/** What a revocation record asks processors to stop: the vCon, and the purposes (none: every purpose). */
export interface RevocationOf {
  vcon: string;
  purposes: string[];
}

/** The revocation a record is, or undefined (grants, reviews and anything else). */
export function revocationOf(record: Record<string, unknown>): RevocationOf | undefined {
  const [r] = lifecycleOrder([record]);
  if (!r || consentRole(r) !== "revocation") return undefined;
  const subject = recordAttributes(record).subject;
  if (typeof subject !== "string" || !/^vcon:\/\//i.test(subject)) return undefined;
  return { vcon: canonicalSubject(subject), purposes: r.lifecycle.purposes };
}

/** The notice's body: what was revoked, by which record, when; the same for every attempt. */
export function noticeBody(n: {
  id: string;
  revocation: string;
  vcon: string;
  purposes: string[];
  revokedAt: string;
  service: string;
}): string {
  return JSON.stringify({
    type: "vcon.consent.revoked",
    notice: n.id,
    vcon: n.vcon,
    purposes: n.purposes,
    all_purposes: n.purposes.length === 0,
    revocation: n.revocation,
    revoked_at: n.revokedAt,
    service: n.service,
  });
}

const SECRET_PREFIX = "whsec_";

/** A Standard Webhooks secret from its key bytes. */
export function signingSecret(key: Uint8Array): string {
  return `${SECRET_PREFIX}${Buffer.from(key).toString("base64")}`;
}

/** The `webhook-*` headers of one delivery of `body` under `secret`, at `timestampSec`. */
export function noticeHeaders(
  secret: string,
  id: string,
  timestampSec: number,
  body: string,
): Record<string, string> {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    "base64",
  );
  const mac = createHmac("sha256", key).update(`${id}.${timestampSec}.${body}`, "utf8").digest("base64");
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestampSec),
    "webhook-signature": `v1,${mac}`,
  };
}

/** Attempts before a notice is given up (it then stays listed as not acknowledged). */
export const NOTICE_ATTEMPTS = 12;

/**
 * How long to wait after the `attempts`-th failed attempt: 5 s doubling to at most an hour, about
 * a day and a half in all; undefined once the attempts are spent.
 */
export function noticeRetryDelayMs(attempts: number, baseMs = 5_000): number | undefined {
  if (attempts >= NOTICE_ATTEMPTS) return undefined;
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
}
