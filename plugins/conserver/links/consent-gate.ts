import { LIFECYCLE_ATTRIBUTES } from "../../../src/formats/lifecycle/vocabulary.js";
import { ConserverError } from "../errors.js";
import { normaliseOperation } from "../operation.js";
import { backendFromOptions } from "./backend-options.js";
import { mergeOptions, optBool, optString } from "./options.js";
import { queueDelivery, subjectUuid } from "./queue-delivery.js";
import { linkEvent, TEMPLATE_OPTION_DEFAULTS } from "./template-options.js";
import type { LinkModule } from "./types.js";

/**
 * Options of the `consent_gate` link: the purpose the processing after it is for (one), the
 * backend whose records hold the vCon's consent, and the operation it gates (named in the
 * refusal it records).
 */
export const defaultOptions: Record<string, unknown> = {
  purpose: undefined,
  operation: "vcon_inference_performed",
  backend: undefined,
  record_refusal: true,
  record_verification: true,
  asset_free: false,
  partner_id: undefined,
  ...TEMPLATE_OPTION_DEFAULTS,
};

/** The refusal's operation: per purpose, so that refusals for two purposes are two records. */
const REFUSED = "vcon_processing_refused";

/**
 * Lets a vCon on only when the backend's records show consent granted for the link's purpose
 * (`GET /archivist/v1/consent/vcons/{uuid}`, as the link's credentials read it). Revoked, or
 * never granted: the refusal is recorded (a `vcon_processing_refused` event naming the purpose,
 * the operation refused and why), and the link throws, so the runtime dead-letters the vCon with
 * the reason. The lifecycle draft's "if consent is revoked, future inferences on that vCon MUST
 * cease", and "refuse processing for any purpose where active consent has not been obtained".
 */
export const run: LinkModule["run"] = async (vconUuid, linkName, options, ctx) => {
  if (!ctx?.consent)
    throw new ConserverError(
      "LINK_CONTEXT",
      `${linkName}: the consent gate needs the runtime's consent source`,
    );
  const o = mergeOptions(defaultOptions, options);
  const purpose = optString(o, "purpose", linkName);
  if (!purpose || purpose.includes(","))
    throw new ConserverError("LINK_OPTIONS", `${linkName}: option purpose must name exactly one purpose`);
  const operation = normaliseOperation(optString(o, "operation", linkName) ?? "");
  const backend = backendFromOptions(o, linkName);
  const record = optBool(o, "record_refusal", linkName, true);
  if (record && !ctx.deliveryQueue)
    throw new ConserverError("LINK_CONTEXT", `${linkName}: recording a refusal needs a delivery queue`);
  // The refusal event is built now: it reads the vCon (its uuid is the subject the records name).
  const { event } = await linkEvent(
    vconUuid,
    "consent_gate",
    linkName,
    { ...o, vcon_operation: `${REFUSED}.${purpose}` },
    ctx,
  );
  const attrs = event.event_attributes;
  const uuid = subjectUuid(event);
  // Verified through the backend, which records the verification before this returns: the
  // processing after the gate is recorded later, so the log holds the check before the act.
  let consent: { state: string; decided_by?: string | undefined } | undefined;
  let answered: boolean;
  if (optBool(o, "record_verification", linkName, true)) {
    const verified = await ctx.consent.verify(backend, uuid, purpose, operation);
    answered = verified !== undefined;
    consent = verified;
    if (verified?.state === "granted" && verified.verification) {
      ctx.log.info(
        {
          link: linkName,
          vconUuid,
          purpose,
          grant: verified.decided_by,
          verification: verified.verification,
        },
        "consent verified and recorded: processing",
      );
      return vconUuid;
    }
  } else {
    const answer = await ctx.consent.consent(backend, uuid, purpose);
    answered = answer !== undefined;
    consent = answer?.consents.find((c) => c.purpose === purpose);
    if (consent?.state === "granted") {
      ctx.log.info(
        { link: linkName, vconUuid, purpose, grant: consent.decided_by },
        "consent granted: processing",
      );
      return vconUuid;
    }
  }
  const reason =
    consent?.state === "revoked"
      ? `consent for ${purpose} was revoked (${consent.decided_by})`
      : answered
        ? `consent for ${purpose} was never granted`
        : `no record of vcon://${uuid} that the link may read, so no consent for ${purpose}`;
  if (record) {
    attrs[LIFECYCLE_ATTRIBUTES.purpose] = purpose;
    attrs[LIFECYCLE_ATTRIBUTES.refusedOperation] = operation;
    attrs[LIFECYCLE_ATTRIBUTES.refusalReason] = reason;
    if (ctx.deliveryQueue) await queueDelivery(ctx.deliveryQueue, { event, backend, o, linkName });
  }
  ctx.log.warn({ link: linkName, vconUuid, purpose, operation, reason }, "processing refused");
  throw new ConserverError("CONSENT_REFUSED", `${operation} refused: ${reason}`, {
    purpose,
    operation,
    state: consent?.state === "revoked" ? "revoked" : "never_asked",
    ...(consent?.decided_by ? { decided_by: consent.decided_by } : {}),
  });
};
