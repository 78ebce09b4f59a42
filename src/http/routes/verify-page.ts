import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Response } from "express";
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

async function sendBuilt(res: Response, dir: string, name: string, type: string): Promise<undefined> {
  let body: Buffer;
  try {
    body = await readFile(join(dir, name));
  } catch {
    res.status(503).json({
      code: 14,
      message: `the verify page is not built (dist/web/${name} is missing): run node scripts/build-web.mjs`,
      details: [],
    });
    return undefined;
  }
  res.setHeader("content-type", type);
  res.setHeader("cache-control", "no-cache");
  res.setHeader("x-content-type-options", "nosniff");
  res.setHeader("content-security-policy", CSP);
  res.send(body);
  return undefined;
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
