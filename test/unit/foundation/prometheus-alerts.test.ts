import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

// The alerts an operator is paged by (deploy/prometheus): checked by Debian's promtool (package
// `prometheus`; .ci/run installs it), which evaluates alerts.test.yml's series against the rules,
// and held here to their runbooks in docs/operations.md. That each metric they name is served is
// test/integration/foundation/work-metrics.test.ts's.
const repo = resolve(import.meta.dirname, "../../..");
const dir = join(repo, "deploy", "prometheus");
const read = (path: string) => readFileSync(join(repo, path), "utf8");
const PROMTOOL = "/usr/bin/promtool";
const runnable = existsSync(PROMTOOL) || process.env.CI === "true";

interface Rule {
  alert?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface AlertTest {
  alertname: string;
  exp_alerts: unknown[];
}

const rules = (parse(read("deploy/prometheus/alerts.yml")) as { groups: Array<{ rules: Rule[] }> }).groups
  .flatMap((g) => g.rules)
  .filter((r) => r.alert !== undefined);
const cases = (
  parse(read("deploy/prometheus/alerts.test.yml")) as { tests: Array<{ alert_rule_test: AlertTest[] }> }
).tests.flatMap((t) => t.alert_rule_test);

/** promtool's exit code and what it printed (a failing check exits 1 with the reason on stdout). */
async function promtool(...args: string[]): Promise<{ code: number; out: string }> {
  if (!existsSync(PROMTOOL))
    throw new Error(`${PROMTOOL} is missing: apt-get install prometheus (CI installs it)`);
  try {
    const { stdout, stderr } = await promisify(execFile)(PROMTOOL, args, { cwd: dir });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

describe("the alerting rules and their runbooks", () => {
  it("each alert has a severity, a summary and a runbook section of docs/operations.md named for it", () => {
    expect(rules.length).toBeGreaterThanOrEqual(6);
    const operations = read("docs/operations.md");
    for (const r of rules) {
      const name = r.alert as string;
      expect(["critical", "warning"], name).toContain(r.labels?.severity);
      expect(r.annotations?.summary, name).toBeTruthy();
      expect(r.annotations?.runbook, name).toBe(`docs/operations.md#${name.toLowerCase()}`);
      expect(operations, name).toMatch(new RegExp(`^### ${name}$`, "m"));
    }
  });

  it("each alert is tested both firing and not firing", () => {
    for (const r of rules) {
      const own = cases.filter((c) => c.alertname === r.alert);
      expect(
        own.some((c) => c.exp_alerts.length > 0),
        `${r.alert} fires`,
      ).toBe(true);
      expect(
        own.some((c) => c.exp_alerts.length === 0),
        `${r.alert} stays quiet`,
      ).toBe(true);
    }
  });
});

describe.runIf(runnable)("promtool", () => {
  it("checks the rules", async () => {
    const r = await promtool("check", "rules", "alerts.yml");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it("fires each alert on its series and no other (alerts.test.yml)", async () => {
    const r = await promtool("test", "rules", "alerts.test.yml");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("SUCCESS");
  });

  it("reads the compose deployment's config, which loads these rules", async () => {
    // The token file is the container's secret: a copy of the config points at a stand-in.
    const work = mkdtempSync(join(tmpdir(), "prometheus-config-"));
    const token = join(work, "token");
    writeFileSync(token, "stand-in");
    copyFileSync(join(dir, "alerts.yml"), join(work, "alerts.yml"));
    const config = readFileSync(join(dir, "prometheus.yml"), "utf8");
    expect(config).toContain("/run/secrets/archivist_metrics_token");
    writeFileSync(
      join(work, "prometheus.yml"),
      config.replace("/run/secrets/archivist_metrics_token", token),
    );
    const r = await promtool("check", "config", join(work, "prometheus.yml"));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it("would catch a rule that no longer fires as tested", async () => {
    const work = mkdtempSync(join(tmpdir(), "prometheus-rules-"));
    copyFileSync(join(dir, "alerts.test.yml"), join(work, "alerts.test.yml"));
    const rulesText = read("deploy/prometheus/alerts.yml");
    const broken = rulesText.replace(
      "archivist_commit_backlog_seconds) > 60",
      "archivist_commit_backlog_seconds) > 600",
    );
    expect(broken).not.toBe(rulesText);
    writeFileSync(join(work, "alerts.yml"), broken);
    const r = await promtool("test", "rules", join(work, "alerts.test.yml"));
    expect(r.code).toBe(1);
    expect(r.out).toContain("ArchivistCommitBacklog");
  });
});

describe.skipIf(runnable)("promtool", () => {
  it.skip(`needs ${PROMTOOL}: apt-get install prometheus (CI installs it, and fails without it)`, () =>
    undefined);
});
