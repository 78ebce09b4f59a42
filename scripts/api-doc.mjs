// Writes docs/api.md from the route table: the same specs that validate requests and
// generate the OpenAPI documents, so the endpoint list cannot drift from the code (a test holds it).
import { writeFileSync } from "node:fs";
import { pino } from "pino";
import { loadConfig } from "../dist/src/config.js";
import { buildApp } from "../dist/src/http/app.js";
import { apiDocOf } from "./api-doc-text.mjs";

const { text, operations } = apiDocOf(buildApp, loadConfig({}, {}), pino({ level: "silent" }));
writeFileSync(new URL("../docs/api.md", import.meta.url), text);
process.stdout.write(`docs/api.md: ${operations} operations\n`);
