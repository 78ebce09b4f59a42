import { join } from "node:path";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { HTML, JS, sendPageFile, webDir } from "../static-files.js";

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
      summary: "Public verification page for documents, vCons and evidence bundles (verifies in the browser)",
      handler: ({ res }) => sendPageFile(res, join(dir, "verify.html"), HTML),
    });
    t.add({
      method: "get",
      path: "/verify/verify.js",
      group: "verify",
      auth: "public",
      summary: "Script bundle of the verify page",
      handler: ({ res }) => sendPageFile(res, join(dir, "verify.js"), JS),
    });
    t.add({
      method: "get",
      path: "/verify/verify-worker.js",
      group: "verify",
      auth: "public",
      summary: "Worker script the verify page and the console check bundles and receipts in",
      handler: ({ res }) => sendPageFile(res, join(dir, "verify-worker.js"), JS),
    });
  };
