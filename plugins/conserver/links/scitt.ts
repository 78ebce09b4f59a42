import { ConserverError } from "../errors.js";
import { mergeOptions, optBool, optString } from "./options.js";
import { withReceiptAnalysis } from "./receipt-analysis.js";
import { linkEvent, TEMPLATE_OPTION_DEFAULTS } from "./template-options.js";
import type { LinkModule } from "./types.js";

/** Options of the `scitt` link (YAML names). */
export const defaultOptions: Record<string, unknown> = {
  vcon_operation: "vcon_created",
  store_receipt: true,
  receipt_vendor: "vcon-archivist",
  ...TEMPLATE_OPTION_DEFAULTS,
};

/**
 * Hashes the vCon, signs its template event as a SCITT statement, registers it and (by default)
 * stores the receipt back on the vCon as a `scitt_receipt` analysis. Signer and registrar come
 * from the context, so the COSE key and the transparency service are the deployment's choice.
 */
export const run: LinkModule["run"] = async (vconUuid, linkName, options, ctx) => {
  if (!ctx?.scitt)
    throw new ConserverError("LINK_CONTEXT", `${linkName}: the scitt link needs a signer and a registrar`);
  const o = mergeOptions(defaultOptions, options);
  const { doc, event } = await linkEvent(vconUuid, "scitt", linkName, o, ctx);
  const attrs = event.event_attributes;
  const statement = await ctx.scitt.signer.sign(attrs);
  let registration: Awaited<ReturnType<typeof ctx.scitt.registrar.register>>;
  try {
    registration = await ctx.scitt.registrar.register(statement);
  } catch (err) {
    throw new ConserverError(
      "SCITT_REGISTRATION",
      `${linkName}: registration failed: ${(err as Error).message}`,
    );
  }
  ctx.log.info({ link: linkName, vconUuid, entryId: registration.entryId }, "statement registered");
  if (!optBool(o, "store_receipt", linkName, true)) return vconUuid;
  if (doc.form !== "unsigned") {
    ctx.log.warn(
      { link: linkName, vconUuid, form: doc.form },
      "receipt not stored: the vCon is not unsigned",
    );
    return vconUuid;
  }
  const record = {
    entry_id: registration.entryId,
    cose_receipt: Buffer.from(registration.receipt).toString("base64"),
    vcon_operation: attrs.vcon_operation as string,
    subject: attrs.subject as string,
    vcon_hash: attrs.payload as string,
  };
  const vendor = optString(o, "receipt_vendor", linkName) ?? "vcon-archivist";
  await ctx.store.put(vconUuid, withReceiptAnalysis(doc, record, vendor));
  return vconUuid;
};
