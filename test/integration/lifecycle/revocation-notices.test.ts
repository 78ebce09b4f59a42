import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processorsCommand } from "../../../src/cli/processors.js";
import { consentReport, consentReportText } from "../../../src/verify/lifecycle/report.js";
import { runCli } from "../../helpers/cli-output.js";
import { until } from "../../helpers/poll.js";
import { plainApplication, startTestService, type TestService } from "../../helpers/service.js";
import { vconEvent } from "../../helpers/vcon-event.js";

// A revocation reaches every processor that has not acknowledged it (docs/vcon-lifecycle.md, §2):
// processors registered by the tenancy receive a signed webhook for each consent revocation,
// retried until they answer 2xx; each acknowledgement is recorded in the log, and the route and
// the CLI list the processors that have not acknowledged.

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A processor's endpoint: answers with `statuses` in turn (the last one from then on) and keeps what it got. */
async function receiver(statuses: number[]): Promise<{ url: string; got: Received[]; server: Server }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      got.push({ headers: req.headers, body });
      res.statusCode = statuses[Math.min(got.length - 1, statuses.length - 1)] ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/revocations`, got, server };
}

/** Checks a Standard Webhooks signature as a processor would, from the secret it was given. */
function signed(r: Received, secret: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const mac = createHmac("sha256", key)
    .update(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`)
    .digest("base64");
  return String(r.headers["webhook-signature"]).split(" ").includes(`v1,${mac}`);
}

let s: TestService;
let token: string;
const receivers: Array<Awaited<ReturnType<typeof receiver>>> = [];

beforeAll(async () => {
  // The processors here listen on loopback, which only an operator's setting lets notices reach.
  s = await startTestService({
    ARCHIVIST_NOTICE_INTERVAL_MS: "100",
    ARCHIVIST_NOTICE_RETRY_BASE_MS: "50",
    ARCHIVIST_WEBHOOK_PRIVATE: "allow",
  });
  token = await s.token(s.a);
});

afterAll(async () => {
  for (const r of receivers) r.server.close();
  await s?.stop();
});

const api = (path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
  s.api(path, { token, ...init });

describe("revocation notices to processors", () => {
  it("tells each registered processor of a revocation until it acknowledges; records each acknowledgement; lists those that have not", async () => {
    const pipeline = await receiver([200]);
    const analytics = await receiver([503, 500, 204]);
    const offline = await receiver([503]);
    receivers.push(pipeline, analytics, offline);
    const secrets: Record<string, string> = {};
    for (const [name, r] of [
      ["training pipeline", pipeline],
      ["analytics", analytics],
      ["offline", offline],
    ] as const) {
      const res = await api("/archivist/v1/consent/processors", {
        method: "POST",
        json: { display_name: name, url: r.url },
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const p = (await res.json()) as { identity: string; signing_secret: string };
      expect(p.identity).toMatch(/^consent\/processors\/[0-9a-f-]{36}$/);
      expect(p.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      secrets[name] = p.signing_secret;
    }
    const listed = (await (await api("/archivist/v1/consent/processors")).json()) as {
      processors: Array<Record<string, unknown>>;
    };
    expect(listed.processors.map((p) => p.display_name)).toEqual([
      "training pipeline",
      "analytics",
      "offline",
    ]);
    // The secret is shown once only.
    for (const p of listed.processors) expect(p).not.toHaveProperty("signing_secret");
    // The database keeps each secret only sealed under the key directory's key, bound to its row.
    const stored = await s.service.ctx.db.query<{ id: string; signing_secret: string }>(
      "select id, signing_secret from consent_processors",
    );
    expect(stored).toHaveLength(3);
    for (const row of stored) {
      expect(row.signing_secret).toMatch(/^box1:/);
      for (const secret of Object.values(secrets)) {
        expect(row.signing_secret).not.toContain(secret);
        expect(row.signing_secret).not.toContain(secret.replace(/^whsec_/, "").slice(0, 16));
      }
    }

    const vcon = crypto.randomUUID();
    const asset = (await (
      await api("/archivist/v2/assets", {
        method: "POST",
        json: { attributes: { arc_display_type: "vcon" } },
      })
    ).json()) as { identity: string };
    const post = async (op: string, purpose: string) => {
      const e = vconEvent(vcon, op, "2026-01-01");
      const res = await api(`/archivist/v2/${asset.identity}/events`, {
        method: "POST",
        json: { ...e, event_attributes: { ...e.event_attributes, consent_purpose: purpose } },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { identity: string }).identity;
    };
    await post("vcon_consent_accepted", "ai_training,analysis");
    const revocation = await post("vcon_consent_revoked", "ai_training");
    const revokedAt = (
      (await (await api(`/archivist/v2/${revocation}`)).json()) as { timestamp_accepted: string }
    ).timestamp_accepted;

    // The pipeline acknowledges at once, analytics after two failures; offline never.
    await until(
      async () =>
        pipeline.got.length >= 1 && analytics.got.length >= 3 && offline.got.length >= 3 ? true : undefined,
      30_000,
    );
    for (const [name, r] of [
      ["training pipeline", pipeline],
      ["analytics", analytics],
      ["offline", offline],
    ] as const) {
      const first = r.got[0] as Received;
      expect(signed(first, secrets[name] as string), name).toBe(true);
      expect(
        signed(
          first,
          secrets.offline === secrets[name] ? (secrets.analytics as string) : (secrets.offline as string),
        ),
      ).toBe(false);
      expect(JSON.parse(first.body)).toMatchObject({
        type: "vcon.consent.revoked",
        vcon: `vcon://${vcon}`,
        purposes: ["ai_training"],
        all_purposes: false,
        revocation,
        revoked_at: revokedAt,
        service: s.url,
      });
      // Every attempt is the same notice: a processor deduplicates by webhook-id.
      expect(new Set(r.got.map((g) => g.headers["webhook-id"])).size).toBe(1);
    }
    // The grant is not a revocation: one notice per processor.
    expect(pipeline.got).toHaveLength(1);

    const notices = await until(async () => {
      const n = (await (await api(`/archivist/v1/consent/notices?vcon=vcon://${vcon}`)).json()) as {
        notices: Array<{
          processor_name: string;
          state: string;
          acknowledgement: string | null;
          attempts: number;
          last_error: string | null;
        }>;
        unacknowledged: Array<{ processor_name: string; state: string; last_error: string | null }>;
      };
      return n.notices.filter((x) => x.state === "acknowledged").length === 2 ? n : undefined;
    }, 30_000);
    expect(notices.notices).toHaveLength(3);
    expect(notices.unacknowledged).toEqual([
      expect.objectContaining({
        processor_name: "offline",
        state: "pending",
        last_error: expect.stringContaining("did not acknowledge the notice"),
      }),
    ]);
    const analyticsNotice = notices.notices.find((n) => n.processor_name === "analytics");
    expect(analyticsNotice?.attempts).toBe(3);

    // Each acknowledgement is a record beside the revocation, read by the report.
    const events = (await (
      await api(
        `/archivist/v2/assets/-/events?event_attributes.subject=${encodeURIComponent(`vcon://${vcon}`)}`,
      )
    ).json()) as { events: Array<{ identity: string; event_attributes: Record<string, unknown> }> };
    const acks = events.events.filter(
      (e) => e.event_attributes.vcon_operation === "vcon_revocation_acknowledged",
    );
    expect(acks.map((a) => a.event_attributes.acknowledging_processor).sort()).toEqual([
      "analytics",
      "training pipeline",
    ]);
    for (const a of acks) {
      expect(a.event_attributes).toMatchObject({
        acknowledged_revocation: revocation,
        consent_purpose: ["ai_training"],
      });
      expect(notices.notices.map((n) => n.acknowledgement)).toContain(a.identity);
    }
    const report = consentReport(`vcon://${vcon}`, events.events);
    expect(report.acknowledgements.map((a) => a.processor).sort()).toEqual([
      "analytics",
      "training pipeline",
    ]);
    // An acknowledgement is not processing.
    expect(report.processing).toEqual([]);
    expect(consentReportText(report).join("\n")).toMatch(
      new RegExp(`acknowledged .* revocation ${revocation} by processor training pipeline`),
    );

    // The CLI lists them, and the one not acknowledged.
    const base = ["--url", s.url, "--token", token];
    const cli = await runCli((a) => processorsCommand.run(a), ["notices", `vcon://${vcon}`, ...base]);
    expect(cli.code, cli.out).toBe(0);
    expect(cli.out).toMatch(
      /^acknowledged training pipeline: vcon:\/\/.* ai_training revoked by .* \(acknowledgement assets\//m,
    );
    expect(cli.out).toMatch(/^NOT ACKNOWLEDGED offline: .*did not acknowledge the notice/m);
    expect(cli.out).toContain("1 notice(s) NOT acknowledged of 3");
    const only = await runCli(
      (a) => processorsCommand.run(a),
      ["notices", "--unacknowledged", "--json", ...base],
    );
    expect(JSON.parse(only.out).notices.map((n: { processor_name: string }) => n.processor_name)).toEqual([
      "offline",
    ]);
  });

  it("a processor registered later is told of the revocations before it; the CLI registers, lists and removes", async () => {
    const late = await receiver([200]);
    receivers.push(late);
    const base = ["--url", s.url, "--token", token];
    const added = await runCli((a) => processorsCommand.run(a), ["add", "late", late.url, ...base]);
    expect(added.code, added.out).toBe(0);
    expect(added.out).toMatch(
      /^consent\/processors\/\S+ late http:\/\/127\.0\.0\.1:\d+\/revocations\nsigning secret: whsec_/,
    );
    await until(async () => (late.got.length >= 1 ? true : undefined), 30_000);
    expect(JSON.parse((late.got[0] as Received).body)).toMatchObject({ type: "vcon.consent.revoked" });
    const id = (added.out.split(" ")[0] ?? "").trim();
    const list = await runCli((a) => processorsCommand.run(a), ["list", ...base]);
    expect(list.out).toContain(`${id} late`);
    const removed = await runCli((a) => processorsCommand.run(a), ["remove", id, ...base]);
    expect(removed.code, removed.out).toBe(0);
    expect((await runCli((a) => processorsCommand.run(a), ["list", ...base])).out).not.toContain(id);
    const again = await runCli((a) => processorsCommand.run(a), ["remove", id, ...base]);
    expect(again.code).toBe(4);
    expect(again.out).toMatch(/^FAILED DELETE .* answered 404/);
  });

  it("a notice's error is the same whether the processor's port answered 404 or is closed", async () => {
    const open = await receiver([404]);
    const closed = await receiver([200]);
    receivers.push(open);
    await new Promise<void>((r) => closed.server.close(() => r()));
    for (const [name, r] of [
      ["open port", open],
      ["closed port", closed],
    ] as const)
      expect(
        (
          await api("/archivist/v1/consent/processors", {
            method: "POST",
            json: { display_name: name, url: r.url },
          })
        ).status,
      ).toBe(200);
    const vcon = crypto.randomUUID();
    const asset = (await (
      await api("/archivist/v2/assets", {
        method: "POST",
        json: { attributes: { arc_display_type: "vcon" } },
      })
    ).json()) as { identity: string };
    const e = vconEvent(vcon, "vcon_consent_revoked", "2026-01-01");
    expect((await api(`/archivist/v2/${asset.identity}/events`, { method: "POST", json: e })).status).toBe(
      200,
    );
    type Notice = { processor_name: string; attempts: number; last_error: string | null };
    const errors = await until(async () => {
      const { notices } = (await (
        await api(`/archivist/v1/consent/notices?vcon=${encodeURIComponent(`vcon://${vcon}`)}`)
      ).json()) as { notices: Notice[] };
      const tried = notices.filter((n) => n.processor_name.endsWith(" port") && n.last_error);
      return tried.length === 2 ? tried : undefined;
    });
    const said = errors.map((n) =>
      (n.last_error ?? "").replace(/^http:\/\/127\.0\.0\.1:\d+\/revocations/, "<url>"),
    );
    expect(said[0]).toBe("<url> did not acknowledge the notice (no 2xx answer)");
    expect(said[1]).toBe(said[0]);
  });

  it("without the operator's setting, loopback, private, link-local and metadata addresses are refused", async () => {
    const guarded = await startTestService();
    try {
      const admin = await guarded.token(guarded.a);
      for (const url of [
        "http://127.0.0.1:8080/",
        "http://localhost:8080/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:8080/",
        "http://[::ffff:127.0.0.1]/",
        "http://10.1.2.3/",
        "http://192.168.0.10/",
        "http://0.0.0.0/",
        "http://[fd00:ec2::254]/",
        // IPv6 forms that embed a refused IPv4 address (issue 71).
        "http://[::127.0.0.1]:8080/",
        "http://[::ffff:0:127.0.0.1]/",
        "http://[64:ff9b::169.254.169.254]/latest/meta-data/",
        "http://[64:ff9b:1::1]/",
        "http://[2002:a9fe:a9fe::1]/",
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
      ]) {
        const res = await guarded.api("/archivist/v1/consent/processors", {
          method: "POST",
          token: admin,
          json: { display_name: "inside", url },
        });
        expect(res.status, url).toBe(400);
        expect(((await res.json()) as { message: string }).message).toContain("ARCHIVIST_WEBHOOK_PRIVATE");
      }
      const outside = await guarded.api("/archivist/v1/consent/processors", {
        method: "POST",
        token: admin,
        json: { display_name: "outside", url: "https://processor.example.com/revocations" },
      });
      expect(outside.status).toBe(200);
    } finally {
      await guarded.stop();
    }
  });

  it("administrators only; another tenancy sees none of it; a bad URL is a 400", async () => {
    const plain = await plainApplication(s, token);
    for (const [path, method] of [
      ["/archivist/v1/consent/processors", "GET"],
      ["/archivist/v1/consent/notices", "GET"],
    ] as const)
      expect((await api(path, { method, token: plain.token })).status).toBe(403);
    expect(
      (
        await api("/archivist/v1/consent/processors", {
          method: "POST",
          token: plain.token,
          json: { display_name: "x", url: "http://127.0.0.1:1/" },
        })
      ).status,
    ).toBe(403);
    const other = await s.token(s.b);
    const theirs = (await (await api("/archivist/v1/consent/notices", { token: other })).json()) as {
      notices: unknown[];
    };
    expect(theirs.notices).toEqual([]);
    expect(
      (
        (await (await api("/archivist/v1/consent/processors", { token: other })).json()) as {
          processors: unknown[];
        }
      ).processors,
    ).toEqual([]);
    for (const url of ["ftp://example.com/", "not a url", "http://user:pw@example.com/"]) {
      const bad = await api("/archivist/v1/consent/processors", {
        method: "POST",
        json: { display_name: "x", url },
      });
      expect(bad.status, url).toBe(400);
    }
    expect((await api("/archivist/v1/consent/notices?vcon=nope")).status).toBe(400);
    expect(
      (await api(`/archivist/v1/consent/processors/${crypto.randomUUID()}`, { method: "DELETE" })).status,
    ).toBe(404);
  });
});
