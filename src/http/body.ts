import express, { type RequestHandler } from "express";
import { badRequest } from "../core/api/api-error.js";

const MAX_DEPTH = 64;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Nesting depth of a parsed JSON value, stopping early past the limit. */
function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || value === null || typeof value !== "object") return depth;
  let max = depth;
  for (const v of Object.values(value)) max = Math.max(max, depthOf(v, limit, depth + 1));
  return max;
}

/** JSON bodies up to 10 MiB, valid UTF-8 only, nested at most 64 levels. */
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
  const depth: RequestHandler = (req, _res, next) => {
    if (req.body !== undefined && depthOf(req.body, MAX_DEPTH) > MAX_DEPTH)
      return next(badRequest(`request body is nested deeper than ${MAX_DEPTH} levels`));
    next();
  };
  return [parse, depth];
}

/** Form bodies (the token endpoint). */
export const formBody = express.urlencoded({ extended: false, limit: "64kb" });

/** COSE and CBOR bodies (SCITT registration), kept as raw bytes. */
export const coseBody = express.raw({
  type: ["application/cose", "application/cbor", "application/*+cose"],
  limit: "1mb",
});
