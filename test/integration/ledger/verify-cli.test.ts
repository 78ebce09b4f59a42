import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import { runCli } from "../../helpers/cli-output.js";
import { until } from "../../helpers/poll.js";
import { evidence, postEvent } from "../../helpers/records.js";
import { serviceForSuite } from "../../helpers/service.js";
import { newAsset } from "../../helpers/vcon-event.js";

const suite = serviceForSuite();
const dir = mkdtempSync(join(tmpdir(), "verify-cli-"));

const cli = (args: string[]) => runCli((a) => verifyCommand.run(a), args);

describe("archivist verify", () => {
  it("verifies a record and its receipt offline, fails after any change, and replays the log's seals", async () => {
    const asset = await newAsset(suite.s, suite.token, "cli");
    const ev = (await (
      await postEvent(
        suite.s,
        suite.token,
        asset,
        evidence({ arc_display_type: "vcon_created", note: "hello" }),
      )
    ).json()) as { identity: string };
    const record = await until(async () => {
      const e = (await (
        await suite.s.api(`/archivist/v2/${ev.identity}`, { token: suite.token })
      ).json()) as Record<string, unknown>;
      return ["CONFIRMED", "UNEQUIVOCAL"].includes(String(e.confirmation_status)) ? e : undefined;
    });
    const [, a, , e] = ev.identity.split("/");
    const receipt = new Uint8Array(
      await (
        await suite.s.api(`/archivist/v1/receipts/assets/${a}/events/${e}`, { token: suite.token })
      ).arrayBuffer(),
    );
    const keys = new Uint8Array(await (await suite.s.api("/.well-known/scitt-keys")).arrayBuffer());
    writeFileSync(join(dir, "record.json"), JSON.stringify(record));
    writeFileSync(join(dir, "r.cose"), receipt);
    writeFileSync(join(dir, "keys.cbor"), keys);
    const ok = await cli([
      join(dir, "record.json"),
      "--receipt",
      join(dir, "r.cose"),
      "--keys",
      join(dir, "keys.cbor"),
    ]);
    expect(ok, ok.out).toMatchObject({ code: 0 });
    expect(ok.out).toMatch(
      /^VERIFIED \(keys pinned, not witnessed\): assets\/.* is log entry \d+ \(MMR position \d+\) of tenant\//m,
    );
    expect(ok.out).toMatch(/unsigned: confirmation_status: not part of the signed leaf/);
    // The keys the service serves show only self-consistency.
    const fetched = await cli([
      join(dir, "record.json"),
      "--receipt",
      join(dir, "r.cose"),
      "--url",
      suite.s.url,
    ]);
    expect(fetched.code, fetched.out).toBe(2);
    expect(fetched.out).toMatch(/key cose-key .*: sha256:[0-9a-f]{64}/);
    writeFileSync(
      join(dir, "bad.json"),
      JSON.stringify({ ...record, event_attributes: { arc_display_type: "vcon_created", note: "hellp" } }),
    );
    const bad = await cli([join(dir, "bad.json"), "--receipt", join(dir, "r.cose"), "--url", suite.s.url]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^TAMPERED: .+/m);
    const tenant = String(record.tenant_identity).replace("tenant/", "");
    const log = await cli(["--log", tenant, "--url", suite.s.url]);
    expect(log, log.out).toMatchObject({ code: 2 });
    // The log as the API names it (tenant_identity) verifies the same, with the keys pinned.
    const named = await cli([
      "--log",
      String(record.tenant_identity),
      "--url",
      suite.s.url,
      "--keys",
      join(dir, "keys.cbor"),
    ]);
    expect(named, named.out).toMatchObject({ code: 0 });
    expect(named.out).toMatch(
      new RegExp(
        `^VERIFIED .*: log tenant/${tenant}: \\d+ seal\\(s\\), each signed and consistent with the one before, the latest of MMR size \\d+`,
        "m",
      ),
    );
    // Nothing to verify named: a usage error (64), not a verdict.
    expect(await cli([])).toMatchObject({
      code: 64,
      out: "",
      err: expect.stringMatching(/usage: archivist verify/),
    });
  });

  it("does not verify a log the service does not know", async () => {
    const unknown = crypto.randomUUID();
    const r = await cli(["--log", `tenant/${unknown}`, "--url", suite.s.url]);
    expect(r.code).toBe(4);
    expect(r.out).toBe(
      `CANNOT EVALUATE: log tenant/${unknown} has no seals at ${suite.s.url} (unknown log, or nothing sealed yet)\n`,
    );
  });
});
