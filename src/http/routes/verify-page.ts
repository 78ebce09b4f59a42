import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyReply } from "fastify";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

/** dist/web of the package, found from this file whether it runs from src/ (tsx) or dist/. */
function webDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, "dist", "web");
}

// Same-origin look-ups only: the page must not be able to send a file or hash anywhere else.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

async function sendBuilt(res: FastifyReply, dir: string, name: string, type: string): Promise<FastifyReply> {
  let body: Buffer;
  try {
    body = await readFile(join(dir, name));
  } catch {
    return res.code(503).send({
      code: 14,
      message: `the verify page is not built (dist/web/${name} is missing): run node scripts/build-web.mjs`,
      details: [],
    });
  }
  return res
    .headers({
      "content-type": type,
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
      "content-security-policy": CSP,
    })
    .send(body);
}

/** The public verify page (GET /verify) and its script bundle; no token needed. */
export function verifyPageRoutes(t: RouteTable, d: HttpDeps): void {
  verifyPageRoutesAt(webDir())(t, d);
}

/** The same routes serving the page from `dir` (tests point it at an empty directory). */
export const verifyPageRoutesAt =
  (dir: string) =>
  (t: RouteTable, _d: HttpDeps): void => {
    t.add({
      method: "get",
      path: "/verify",
      group: "verify",
      auth: "public",
      summary: "Public verification page for documents and vCons (verifies in the browser)",
      handler: ({ res }) => sendBuilt(res, dir, "verify.html", "text/html; charset=utf-8"),
    });
    t.add({
      method: "get",
      path: "/verify/verify.js",
      group: "verify",
      auth: "public",
      summary: "Script bundle of the verify page",
      handler: ({ res }) => sendBuilt(res, dir, "verify.js", "text/javascript; charset=utf-8"),
    });
  };
