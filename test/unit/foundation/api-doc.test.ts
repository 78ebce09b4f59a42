import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script (plain ESM, no declarations) shared with the test
import { apiDocOf } from "../../../scripts/api-doc-text.mjs";
import { loadConfig } from "../../../src/config.js";
import { buildApp } from "../../../src/http/app.js";

// docs/api.md is generated from the route table; it had drifted 13 operations behind it because
// nothing ran the script. Regenerate with `npm run build && node scripts/api-doc.mjs`.
describe("docs/api.md", () => {
  it("is what scripts/api-doc.mjs writes from today's route table", () => {
    const of = apiDocOf as (build: typeof buildApp, config: unknown, log: unknown) => { text: string };
    const written = readFileSync(resolve(import.meta.dirname, "../../../docs/api.md"), "utf8");
    expect(written).toBe(of(buildApp, loadConfig({}, {}), pino({ level: "silent" })).text);
  });
});
