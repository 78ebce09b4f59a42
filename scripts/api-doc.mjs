// Writes docs/api.md from the route table: the same specs that validate requests and
// generate the OpenAPI documents, so the endpoint list cannot drift from the code.
import { writeFileSync } from "node:fs";
import { pino } from "pino";
import { loadConfig } from "../dist/src/config.js";
import { buildApp } from "../dist/src/http/app.js";
import { apiDocText } from "./api-doc-text.mjs";

const ctx = {
  db: {},
  config: loadConfig({}, {}),
  log: pino({ level: "silent" }),
  keys: {},
  wake: { commit() {} },
};
const { specs } = buildApp(ctx);
const text = apiDocText(specs);
writeFileSync(new URL("../docs/api.md", import.meta.url), text);
process.stdout.write(`docs/api.md: ${specs.length} operations\n`);
