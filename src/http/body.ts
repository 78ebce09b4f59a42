import express, { type RequestHandler } from "express";
import { badRequest } from "../core/api/api-error.js";
import { unstorableIndex } from "../core/filters/text-guard.js";

const MAX_DEPTH = 64;
const utf8 = new TextDecoder("utf-8", { fatal: true });

type BodyFault = { kind: "depth" } | { kind: "text"; path: string };

/**
 * The first reason a parsed JSON value cannot be accepted: nested past `limit`, or a key or
 * string PostgreSQL cannot store (NUL, unpaired surrogate). Caught here, such text would
 * otherwise fail a database write as a 500, and with it every request sharing its group commit.
 */
function faultOf(value: unknown, limit: number, path = "", depth = 0): BodyFault | undefined {
  if (typeof value === "string") return unstorableIndex(value) >= 0 ? { kind: "text", path } : undefined;
  // Raw COSE/CBOR bodies arrive as bytes, checked by their own decoder.
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return undefined;
  if (depth >= limit) return { kind: "depth" };
  const array = Array.isArray(value);
  for (const [k, v] of Object.entries(value)) {
    const here = array ? `${path}[${k}]` : path ? `${path}.${k}` : k;
    if (!array && unstorableIndex(k) >= 0) return { kind: "text", path: `${path ? `${path}.` : ""}<key>` };
    const fault = faultOf(v, limit, here, depth + 1);
    if (fault) return fault;
  }
  return undefined;
}

/** JSON bodies up to 10 MiB, valid UTF-8 only, nested at most 64 levels, storable text only. */
export function jsonBody(): RequestHandler[] {
  const parse = express.json({
    limit: "10mb",
    strict: false,
    type: ["application/json", "application/*+json"],
    verify: (_req, _res, buf) => {
      try {
        utf8.decode(buf);
      } catch {
        throw Object.assign(new Error("invalid utf-8"), { code: "BAD_UTF8", status: 400 });
      }
    },
  });
  const check: RequestHandler = (req, _res, next) => {
    const fault = req.body === undefined ? undefined : faultOf(req.body, MAX_DEPTH);
    if (fault?.kind === "depth")
      return next(badRequest(`request body is nested deeper than ${MAX_DEPTH} levels`));
    if (fault?.kind === "text")
      return next(badRequest(`${fault.path || "body"} contains a NUL character or an unpaired surrogate`));
    next();
  };
  return [parse, check];
}

/** Form bodies (the token endpoint). */
export const formBody = express.urlencoded({ extended: false, limit: "64kb" });

/** COSE and CBOR bodies (SCITT registration), kept as raw bytes. */
export const coseBody = express.raw({
  type: ["application/cose", "application/cbor", "application/*+cose"],
  limit: "1mb",
});
