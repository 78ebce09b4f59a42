import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

// What the project ships for vcon-server operators (plugins/conserver/vcon-server): its
// config.yml sections for the datatrails and scitt links and the scitt storage backend, and the
// access policy of the datatrails link's application. The interop tests read them, so a wrong
// URL, key or permission in the shipped files fails a test.
const dir = join(import.meta.dirname, "../../plugins/conserver/vcon-server");

/** The address the snippet names the service by (its default): tests put their service's there. */
const SNIPPET_ORIGIN = "http://127.0.0.1:8080";

export interface DataTrailsOptions {
  api_url: string;
  vcon_operation: string;
  partner_id: string;
  auth: { type: string; token_endpoint: string; client_id: string; client_secret: string };
}

export interface ScittLinkOptions {
  scrapi_url: string;
  signing_key_path: string;
  issuer: string;
  key_id: string;
  vcon_operation: string;
  store_receipt: boolean;
}

export interface ScittStorageOptions {
  scrapi_url: string;
  signing_key_path: string;
  issuer: string;
  key_id: string;
  operations: string[];
}

interface ModuleConfig<O> {
  module: string;
  options: O;
}

export interface VconServerConfig {
  links: Record<string, ModuleConfig<Record<string, unknown>>>;
  storages: Record<string, ModuleConfig<Record<string, unknown>>>;
  chains: Record<string, { links: string[]; storages?: string[]; enabled: number }>;
}

/** The shipped config.yml, parsed as vcon-server parses it (plain YAML). */
export function vconServerConfig(): VconServerConfig {
  return parse(readFileSync(join(dir, "config.yml"), "utf8")) as VconServerConfig;
}

/** The one link (or storage) of a module in the shipped config, with its name. */
export function shipped<O>(
  section: Record<string, ModuleConfig<Record<string, unknown>>>,
  module: string,
): { name: string; options: O } {
  const found = Object.entries(section).filter(([, c]) => c.module === module);
  if (found.length !== 1) throw new Error(`the shipped config has ${found.length} ${module} entries`);
  const [name, c] = found[0] as [string, ModuleConfig<Record<string, unknown>>];
  return { name, options: c.options as O };
}

/** A URL of the snippet at the test's service: its origin replaced, its path kept as shipped. */
export function atService(url: string, serviceUrl: string): string {
  if (!url.startsWith(`${SNIPPET_ORIGIN}/`)) throw new Error(`${url} is not at ${SNIPPET_ORIGIN}`);
  return `${serviceUrl}${url.slice(SNIPPET_ORIGIN.length)}`;
}

/** The snippet's `<…>` placeholders replaced, as the docs tell an operator to. */
export function filled(text: string, values: Record<string, string>): string {
  return text.replace(/<([a-z ]+)>/g, (whole, name: string) => values[name] ?? whole);
}

/** The shipped access policy with the application's client id put in, as docs/vcon-server.md does. */
export function shippedPolicy(clientId: string): Record<string, unknown> {
  const text = readFileSync(join(dir, "access-policy.json"), "utf8");
  return JSON.parse(filled(text, { "conserver client id": clientId })) as Record<string, unknown>;
}
