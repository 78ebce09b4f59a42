import { LIFECYCLE_ATTRIBUTES } from "../../../src/formats/lifecycle/vocabulary.js";
import {
  analysesWithProvenance,
  analysisDerivation,
  PROVENANCE_ATTRIBUTES,
  PROVENANCE_CONTENT_TYPE,
} from "../../../src/verify/index.js";
import { ConserverError } from "../errors.js";
import { backendFromOptions } from "./backend-options.js";
import { mergeOptions } from "./options.js";
import { queueDelivery } from "./queue-delivery.js";
import { linkEvent, TEMPLATE_OPTION_DEFAULTS } from "./template-options.js";
import type { LinkModule } from "./types.js";

/** Options of the `provenance` link: the lifecycle operation its records are (an AI event), and a backend. */
export const defaultOptions: Record<string, unknown> = {
  vcon_operation: "vcon_inference_performed",
  backend: undefined,
  asset_free: false,
  partner_id: undefined,
  ...TEMPLATE_OPTION_DEFAULTS,
};

/**
 * Records the derivation of every analysis of the vCon that carries a `provenance` member
 * (draft-howe-vcon-provenance-00): one template event per analysis, its `payload` the SHA-256 of
 * the derivation's canonical JSON (model, provider, parameters, prompt hash, each input element's
 * hash, the output's hash; `src/verify/lifecycle/provenance.ts`), its operation an AI lifecycle
 * event (`vcon_inference_performed` by default, with the link's `purpose`). Each is a statement
 * like any template event. An analysis whose provenance does not hold (an input that is not in
 * the vCon, a stated hash that is not the element's) fails the link: the vCon is dead-lettered.
 */
export const run: LinkModule["run"] = async (vconUuid, linkName, options, ctx) => {
  if (!ctx?.deliveryQueue)
    throw new ConserverError("LINK_CONTEXT", `${linkName}: the provenance link needs a delivery queue`);
  const o = mergeOptions(defaultOptions, options);
  const backend = backendFromOptions(o, linkName);
  const { doc, event } = await linkEvent(vconUuid, "provenance", linkName, o, ctx);
  const unsigned = doc.unsigned ?? {};
  for (const index of analysesWithProvenance(unsigned)) {
    const d = analysisDerivation(unsigned, index);
    if (!d.ok)
      throw new ConserverError("PROVENANCE_INVALID", `${linkName}: ${d.reason}`, { analysis: index });
    const attrs: Record<string, string> = {
      ...event.event_attributes,
      payload: d.hash,
      payload_preimage_content_type: PROVENANCE_CONTENT_TYPE,
      [PROVENANCE_ATTRIBUTES.analysis]: String(index),
      [PROVENANCE_ATTRIBUTES.model]: d.derivation.model,
      [PROVENANCE_ATTRIBUTES.output]: d.derivation.output_sha256,
    };
    if (d.derivation.provider) attrs[PROVENANCE_ATTRIBUTES.provider] = d.derivation.provider;
    const purpose = event.event_attributes[LIFECYCLE_ATTRIBUTES.purpose];
    if (purpose) attrs[LIFECYCLE_ATTRIBUTES.purpose] = purpose;
    await queueDelivery(ctx.deliveryQueue, {
      event: { ...event, event_attributes: attrs },
      backend,
      o,
      linkName,
    });
    ctx.log.info({ link: linkName, vconUuid, analysis: index, derivation: d.hash }, "provenance queued");
  }
  return vconUuid;
};
