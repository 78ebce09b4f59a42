import {
  isLosslessObject,
  type LosslessJson,
  type LosslessObject,
} from "../../formats/vcon/lossless-json.js";

const TOP_LEVEL: Array<[string, string]> = [
  ["appended", "amended"],
  ["must_support", "critical"],
];
const ITEM: Array<[string, string]> = [
  ["schema_version", "schema"],
  ["mimetype", "mediatype"],
  ["must_support", "critical"],
];

/** Python's `d[new] = d.pop(old)`: the value moves to the end of the object. */
function rename(o: LosslessObject, from: string, to: string): void {
  if (!o.has(from) || o.has(to)) return;
  const v = o.get(from) as LosslessJson;
  o.delete(from);
  o.set(to, v);
}

function renameItems(list: LosslessJson | undefined, attachments: boolean): LosslessJson | undefined {
  if (!Array.isArray(list)) return list;
  return list.map((item) => {
    if (!isLosslessObject(item)) return item;
    const copy = new Map(item);
    for (const [from, to] of ITEM) rename(copy, from, to);
    if (attachments) rename(copy, "type", "purpose");
    return copy;
  });
}

/**
 * The legacy field renames vcon-server applies when it reads a vCon (0.0.x/0.3.0 names to 0.4.0),
 * so a hash computed here matches the Python link's for vCons stored in the old format.
 * Returns a new object; the input is left as it was.
 */
export function normalizeLegacyFields(vcon: LosslessObject): LosslessObject {
  const out = new Map(vcon);
  for (const [from, to] of TOP_LEVEL) rename(out, from, to);
  for (const key of ["dialog", "analysis", "attachments"]) {
    if (!out.has(key)) continue;
    out.set(key, renameItems(out.get(key), key === "attachments") ?? null);
  }
  return out;
}
