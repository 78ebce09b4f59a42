import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../../plugins/conserver/config/load-config.js";
import { ConserverError } from "../../../plugins/conserver/errors.js";
import { backendFromOptions } from "../../../plugins/conserver/links/backend-options.js";
import { resolveLinks } from "../../../plugins/conserver/runtime/chain.js";

const PYTHON_STYLE = `
ingress_auth:
  create_ingress: secret
storages:
  s3: {module: storage.s3}
links:
  datatrails_created:
    module: links.datatrails
    options:
      api_url: "https://app.datatrails.ai/archivist"
      vcon_operation: "vcon_created"
      partner_id: "acme"
      auth: {type: "OIDC-client-credentials", token_endpoint: "https://x/token", client_id: "id", client_secret: "\${SECRET}"}
  tagger:
    module: archivist
chains:
  create_chain:
    links: [datatrails_created, tagger]
    ingress_lists: [create_ingress]
    egress_lists: [default_egress]
    enabled: 1
  off_chain:
    links: [tagger]
    ingress_lists: [off]
    enabled: 0
delivery:
  queue: my-delivery
  attempts: 3
  backoff_ms: 10
`;

function error(f: () => unknown): ConserverError | undefined {
  try {
    f();
  } catch (err) {
    if (err instanceof ConserverError) return err;
    throw err;
  }
  return undefined;
}

describe("conserver config", () => {
  it("reads the vcon-server format with our delivery section and environment secrets", () => {
    const c = parseConfig(PYTHON_STYLE, "/etc", { SECRET: "s3cr3t" });
    expect(c.links.datatrails_created?.module).toBe("links.datatrails");
    const options = c.links.datatrails_created?.options as { auth: { client_secret: string } } | undefined;
    expect(options?.auth.client_secret).toBe("s3cr3t");
    expect(c.links.tagger?.options).toBeNull();
    expect(c.chains.create_chain).toEqual({
      name: "create_chain",
      links: ["datatrails_created", "tagger"],
      ingressLists: ["create_ingress"],
      egressLists: ["default_egress"],
      enabled: true,
    });
    expect(c.chains.off_chain?.enabled).toBe(false);
    expect(c.delivery).toMatchObject({ queue: "my-delivery", attempts: 3, backoffMs: 10, concurrency: 32 });
    expect(c.ignored.sort()).toEqual(["ingress_auth", "storages"]);
  });

  it.each([
    ["links: [1]\nchains: {}", "links"],
    ["links: {a: {options: {}}}\nchains: {c: {links: [a], ingress_lists: [x]}}", "links.a.module"],
    [
      "links: {a: {module: m, options: [1]}}\nchains: {c: {links: [a], ingress_lists: [x]}}",
      "links.a.options",
    ],
    ["links: {a: {module: m}}\nchains: {c: {links: [b], ingress_lists: [x]}}", "chains.c.links[0]"],
    ["links: {a: {module: m}}\nchains: {c: {links: [a]}}", "chains.c.ingress_lists"],
    ["links: {a: {module: m}}\nchains: {c: {links: a, ingress_lists: [x]}}", "chains.c.links"],
    [
      "links: {a: {module: m}}\nchains: {c: {links: [a], ingress_lists: [x], egress_lists: [1]}}",
      "chains.c.egress_lists[0]",
    ],
    ["links: {}\nchains: {}", "chains"],
    [
      "links: {a: {module: m}}\nchains: {c: {links: [a], ingress_lists: [x]}}\ndelivery: {attempts: 0}",
      "delivery.attempts",
    ],
    [
      "links: {a: {module: m}}\nchains: {c: {links: [a], ingress_lists: [x]}}\ndelivery: {queue: 'a:b'}",
      "delivery.queue",
    ],
    [
      "links: {a: {module: '" + "${" + "NOPE}'}}\nchains: {c: {links: [a], ingress_lists: [x]}}",
      "links.a.module",
    ],
    ["- just\n- a list", "config"],
  ])("names the bad key: %s", (yaml, key) => {
    const err = error(() => parseConfig(yaml, ".", {}));
    expect(err?.code).toBe("CONFIG_INVALID");
    expect(err?.message.startsWith(`${key}:`), err?.message).toBe(true);
  });

  it("reads the config.yml shipped for vcon-server: its datatrails link delivers to this service's API", () => {
    const c = loadConfig(join(import.meta.dirname, "../../../plugins/conserver/vcon-server/config.yml"));
    expect(c.chains.archivist_chain?.links).toEqual(["datatrails_created", "scitt_created"]);
    expect(c.ignored).toEqual(["storages"]);
    const dt = c.links.datatrails_created;
    expect(dt?.module).toBe("links.datatrails");
    expect(backendFromOptions(dt?.options as Record<string, unknown>, "datatrails_created")).toEqual({
      url: "http://127.0.0.1:8080",
      clientId: "<conserver client id>",
      clientSecret: "<conserver client secret>",
      tokenUrl: "http://127.0.0.1:8080/archivist/iam/v1/appidp/token",
      partnerId: "vcon-archivist",
    });
  });

  it("refuses YAML syntax errors and unreadable files", () => {
    expect(error(() => parseConfig("links: [", ".", {}))?.code).toBe("CONFIG_INVALID");
    expect(error(() => loadConfig("/nonexistent/conserver.yml"))?.code).toBe("CONFIG_INVALID");
  });

  it("resolves built-in and file link modules, and names an unknown one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "conserver-config-"));
    writeFileSync(
      join(dir, "my-link.mjs"),
      "export const defaultOptions = {}; export async function run(uuid) { return uuid; }",
    );
    writeFileSync(
      join(dir, "conserver.yml"),
      "links:\n  a: {module: archivist}\n  b: {module: ./my-link.mjs}\nchains:\n  c: {links: [a, b], ingress_lists: [x]}\n",
    );
    const links = await resolveLinks(loadConfig(join(dir, "conserver.yml")));
    expect([...links.keys()]).toEqual(["a", "b"]);
    expect(await links.get("b")?.module.run("u1", "b", null, {} as never)).toBe("u1");
    const bad = parseConfig(
      "links:\n  a: {module: links.analyze}\nchains:\n  c: {links: [a], ingress_lists: [x]}\n",
      dir,
      {},
    );
    await expect(resolveLinks(bad)).rejects.toThrow(/links\.a\.module: unknown link module links\.analyze/);
  });
});
