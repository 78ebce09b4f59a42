import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyReply } from "fastify";

/** dist/web of the package, found from this file whether it runs from src/ (tsx) or dist/. */
export function webDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, "dist", "web");
}

/**
 * The pages' policy: same-origin scripts, styles and look-ups only, so a page can send a file
 * or a hash nowhere else, and nothing loads from a CDN.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Sends a file of a page (HTML, script, style) with the pages' headers; 503 naming the build step when it is missing. */
export async function sendPageFile(res: FastifyReply, path: string, type: string): Promise<FastifyReply> {
  let body: Buffer;
  try {
    body = await readFile(path);
  } catch {
    return res.code(503).send({
      code: 14,
      message: `the pages are not built (${path} is missing): run node scripts/build-web.mjs`,
      details: [],
    });
  }
  return res
    .headers({
      "content-type": type,
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
      "content-security-policy": PAGE_CSP,
      "referrer-policy": "no-referrer",
    })
    .send(body);
}

export const HTML = "text/html; charset=utf-8";
export const JS = "text/javascript; charset=utf-8";
export const CSS = "text/css; charset=utf-8";
