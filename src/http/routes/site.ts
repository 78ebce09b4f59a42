import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { HttpDeps } from "../deps.js";
import { openApiDocument } from "../openapi.js";
import type { RouteTable } from "../route.js";
import { CSS, HTML, JS, sendPageFile, webDir } from "../static-files.js";

// Swagger UI is served from the installed package: the docs work offline, with no CDN.
const swaggerDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** The landing page, the console, the shared stylesheet and the browsable API reference; none needs a token (the console's API calls do). */
export function siteRoutes(t: RouteTable, d: HttpDeps): void {
  const web = webDir();
  const page = (path: string, file: string, type: string, summary: string, dir = web) =>
    t.add({
      method: "get",
      path,
      group: "site",
      auth: "public",
      summary,
      handler: ({ res }) => sendPageFile(res, join(dir, file), type),
    });
  page("/", "index.html", HTML, "Landing page: links to /verify, /console and the API docs");
  page("/site.css", "site.css", CSS, "Stylesheet shared by the pages");
  page(
    "/console",
    "console.html",
    HTML,
    "Auditors' console: sign in, find a trail, verify receipts, export evidence",
  );
  page(
    "/console/console.js",
    "console.js",
    JS,
    "Script bundle of the console (the core verifier, for the browser)",
  );
  page("/docs", "docs.html", HTML, "Browsable API reference (Swagger UI)");
  page(
    "/docs/verification",
    "verification.html",
    HTML,
    "docs/verification.md as a page: trust roots, verdict codes and what each level proves",
  );
  page("/docs/docs.js", "docs.js", JS, "Script of the API reference page");
  page("/docs/swagger-ui.css", "swagger-ui.css", CSS, "Swagger UI stylesheet", swaggerDir);
  page("/docs/swagger-ui-bundle.js", "swagger-ui-bundle.js", JS, "Swagger UI", swaggerDir);
  // Built at the first request, once every route is registered; the routes never change after.
  let reference: ReturnType<typeof openApiDocument> | undefined;
  t.add({
    method: "get",
    path: "/docs/openapi.json",
    group: "site",
    auth: "public",
    // The reference of every route, as docs/api.md publishes it: it names routes, never records.
    summary: "OpenAPI (Swagger 2.0) document of every route, for the API reference",
    handler: async () => {
      reference ??= openApiDocument(t.specs, "", d.ctx.baseUrl);
      return reference;
    },
  });
}
