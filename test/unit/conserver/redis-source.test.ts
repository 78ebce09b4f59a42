import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadOperatorSection } from "../../../plugins/conserver/config/load-config.js";
import { chooseRedis, describeRedis } from "../../../plugins/conserver/config/redis-source.js";

describe("the Redis a conserver command uses", () => {
  it("is --redis-url, else the config's redis_url, else REDIS_URL, else the default, and says which", () => {
    const config = { path: "c.yml", redisUrl: "redis://r:6379/3" };
    const env = { REDIS_URL: "redis://e:6379/4" };
    expect(chooseRedis("redis://f:6379/5", config, env)).toEqual({
      url: "redis://f:6379/5",
      from: "--redis-url",
    });
    expect(chooseRedis(undefined, config, env)).toEqual({
      url: "redis://r:6379/3",
      from: "redis_url in c.yml",
    });
    expect(chooseRedis(undefined, { path: "c.yml" }, env)).toEqual({
      url: "redis://e:6379/4",
      from: "REDIS_URL",
    });
    expect(chooseRedis(undefined, undefined, {})).toEqual({
      url: "redis://127.0.0.1:6379",
      from: "the default",
    });
  });

  it("is described with its database and never its password", () => {
    expect(describeRedis("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379 db 0");
    expect(describeRedis("redis://:hunter2@cache:6380/7")).toBe("redis://cache:6380 db 7");
    expect(describeRedis("rediss://ops:hunter2@cache:6380/2")).toBe("rediss://ops@cache:6380 db 2");
  });

  it("a config gives the dead-letter commands its delivery section, redis_url and enabled ingress lists, without the links' secrets", () => {
    const file = join(mkdtempSync(join(tmpdir(), "operator-")), "c.yml");
    writeFileSync(
      file,
      `redis_url: "\${WHERE:-redis://127.0.0.1:6379/2}"
links:
  a: {module: archivist, options: {backend: {client_secret: "\${NEVER_SET}"}}}
chains:
  on: {links: [a], ingress_lists: [in-1, in-2]}
  off: {links: [a], ingress_lists: [in-3], enabled: 0}
  again: {links: [a], ingress_lists: [in-2], enabled: 1}
delivery: {queue: q, prefix: p}
`,
    );
    expect(loadOperatorSection(file, {})).toMatchObject({
      redisUrl: "redis://127.0.0.1:6379/2",
      ingressLists: ["in-1", "in-2"],
      delivery: { queue: "q", prefix: "p" },
    });
    expect(loadOperatorSection(file, { WHERE: "redis://elsewhere:6379/9" }).redisUrl).toBe(
      "redis://elsewhere:6379/9",
    );
    writeFileSync(file, "redis_url: localhost\nchains: {}\n");
    expect(() => loadOperatorSection(file, {})).toThrow(/redis_url: must be a redis:\/\/ or rediss:\/\/ URL/);
  });
});
