import { isRecord } from "../vcon.js";
import { IDENTITY } from "./delivery-claims.js";
import { TransientDeliveryError } from "./errors.js";

const ID = "[A-Za-z0-9-]{1,64}";
const FREE_EVENT = new RegExp(`^events/${ID}$`);
const EVENT_OF = new RegExp(`^(assets/${ID})/events/${ID}$`);

// A write counts as recorded only when its answer names what it made. Anything else (`{}` from a
// proxy that wrote nothing, a record of something else) is as good as a lost answer: its
// outcome is unknown, so the delivery's next attempt looks before it writes again.

function lost(what: string, why: string): TransientDeliveryError {
  return new TransientDeliveryError(`${what} answered ${why}: taken as a lost answer`);
}

/** The asset identity an answer names (`{identity: "assets/<uuid>"}`). */
export function assetIdentityOf(v: unknown, what: string): string {
  const id = isRecord(v) ? v.identity : undefined;
  // The identity goes into later request paths: a hostile or broken backend must not steer them.
  if (typeof id !== "string" || !IDENTITY.test(id)) throw lost(what, "without a valid asset identity");
  return id;
}

/** Checks that an event post's answer names an event of `asset`. */
export function checkMadeEvent(v: unknown, asset: string, what: string): void {
  const id = isRecord(v) ? v.identity : undefined;
  if (typeof id !== "string" || EVENT_OF.exec(id)?.[1] !== asset)
    throw lost(what, `without the identity of an event of ${asset}`);
}

/** Checks that an asset-free event's answer names one (`events/<uuid>`). */
export function checkMadeFreeEvent(v: unknown, what: string): void {
  const id = isRecord(v) ? v.identity : undefined;
  if (typeof id !== "string" || !FREE_EVENT.test(id)) throw lost(what, "without an event identity");
}

/**
 * The asset an `assets:withEvents` answer names, once it also names the one event sent with it,
 * on that asset (the records, or under `return=minimal` their identities: both carry them).
 */
export function madeAssetWithEvent(v: unknown, what: string): string {
  const asset = assetIdentityOf(isRecord(v) ? v.asset : undefined, what);
  const events = isRecord(v) ? v.events : undefined;
  if (!Array.isArray(events) || events.length !== 1) throw lost(what, "without its one event");
  checkMadeEvent(events[0], asset, what);
  return asset;
}
