import { ConserverError } from "./errors.js";

const NAME = /^[a-z0-9][a-z0-9_.-]*$/;

/**
 * The template's operation name, normalised as the Python link does: lower case, a leading
 * `vcon_` or `vcon-` dropped, then `vcon_` prefixed (`created`, `VCON-created`, `vcon_created`
 * all give `vcon_created`). An empty or missing operation is refused rather than becoming
 * Python's `vcon_vcon`.
 */
export function normaliseOperation(op: unknown): string {
  if (typeof op !== "string" || op.trim() === "")
    throw new ConserverError("LINK_OPTIONS", "vcon_operation is required (e.g. vcon_created)");
  let name = op.trim().toLowerCase();
  if (name.startsWith("vcon_")) name = name.slice(5);
  if (name.startsWith("vcon-")) name = name.slice(5);
  if (!NAME.test(name))
    throw new ConserverError(
      "LINK_OPTIONS",
      `vcon_operation ${JSON.stringify(op)} is not a valid operation name`,
    );
  return `vcon_${name}`;
}
