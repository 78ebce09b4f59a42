import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OidcIssuer, startOidcIssuer } from "../../helpers/oidc-issuer.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/** A minimal SMTP server that keeps every message it is given (nodemailer speaks plain SMTP to it). */
async function startSmtpSink(): Promise<{ url: string; mails: string[]; server: Server }> {
  const mails: string[] = [];
  const server = createServer((sock) => {
    sock.write("220 sink ESMTP\r\n");
    let buf = "";
    let inData = false;
    let mail = "";
    sock.on("data", (chunk) => {
      buf += chunk.toString("utf8");
      for (let i = buf.indexOf("\r\n"); i >= 0; i = buf.indexOf("\r\n")) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            mails.push(mail);
            mail = "";
            sock.write("250 queued\r\n");
          } else mail += `${line}\n`;
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === "EHLO" || cmd === "HELO") sock.write("250 sink\r\n");
        else if (cmd === "DATA") {
          inData = true;
          sock.write("354 go ahead\r\n");
        } else if (cmd === "QUIT") sock.end("221 bye\r\n");
        else sock.write("250 ok\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`, mails, server };
}

// Quoted-printable soft line breaks and escapes, as nodemailer writes long lines.
const unQuote = (s: string) =>
  s
    .replace(/=\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));

let s: TestService;
let idp: OidcIssuer;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  idp = await startOidcIssuer();
  smtp = await startSmtpSink();
  s = await startTestService(
    { ARCHIVIST_SMTP_URL: `${smtp.url}?from=archivist%40example.org` },
    {},
    {
      oidc: { issuer: idp.issuer, jwks_url: idp.jwksUrl },
      members: [
        { email: "olive@a.example", display_name: "Olive", roles: ["OWNER"] },
        { email: "bob@a.example", display_name: "Bob" },
        { email: "carol@a.example", display_name: "Carol" },
      ],
    },
  );
});
afterAll(async () => {
  await s?.stop();
  await idp?.close();
  smtp?.server.close();
});

const MEMBERS = "/archivist/iam/v1/members";
type Member = { identity: string; display_name: string; email: string; active: boolean; roles: string[] };
type MemberList = { members: Member[]; page_token: string; next_page_token: string };
type Invite = { identity: string; email: string; message: string; expiry_time: string; code: string };

const member = (email: string, alg: "ES256" | "RS256" = "ES256") => idp.mint({ email }, alg);

async function memberId(email: string): Promise<string> {
  const list = (await (
    await s.api(`${MEMBERS}?member_state=MEMBER_STATE_BOTH`, { token: await member("olive@a.example") })
  ).json()) as MemberList;
  const m = list.members.find((x) => x.email === email);
  if (!m) throw new Error(`no member ${email}`);
  return m.identity.slice("members/".length);
}

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

describe("member authentication through the tenancy's OIDC issuer", () => {
  it("accepts ES256 and RS256 tokens of a member, refuses unknown e-mails, other issuers and expired tokens", async () => {
    const owner = await member("olive@a.example");
    const res = await s.api(MEMBERS, { token: owner });
    expect(res.status).toBe(200);
    const list = await json<MemberList>(res);
    expect(list.members.map((m) => m.email).sort()).toEqual([
      "bob@a.example",
      "carol@a.example",
      "olive@a.example",
    ]);
    expect(list.members.find((m) => m.email === "olive@a.example")?.roles).toEqual(["OWNER"]);
    expect(list.page_token).toBe("");
    expect(list.next_page_token).toBe("");

    const bob = await member("bob@a.example", "RS256");
    expect((await s.api("/archivist/iam/v1/memberships", { token: bob })).status).toBe(200);
    expect((await s.api(MEMBERS, { token: await member("mallory@a.example") })).status).toBe(401);
    const stranger = await startOidcIssuer();
    try {
      expect(
        (await s.api(MEMBERS, { token: await stranger.mint({ email: "olive@a.example" }) })).status,
      ).toBe(401);
    } finally {
      await stranger.close();
    }
    const expired = await idp.mint({ email: "olive@a.example", expiresIn: -60 });
    expect((await s.api(MEMBERS, { token: expired })).status).toBe(401);
    expect((await s.api(MEMBERS)).status).toBe(401);
  });

  it("lists the caller's memberships; an application has none", async () => {
    const res = await s.api("/archivist/iam/v1/memberships", { token: await member("carol@a.example") });
    const body = await json<{ memberships: Array<Record<string, string>>; next_page_token: string }>(res);
    expect(body.memberships).toHaveLength(1);
    expect(body.memberships[0]).toMatchObject({
      display_name: "Org A",
      identity: expect.stringMatching(/^members\//),
    });
    expect(body.memberships[0]?.tenant_id).toMatch(/^tenancies\/[0-9a-f-]{36}$/);
    expect(body.next_page_token).toBe("");
    const app = await json<{ memberships: unknown[] }>(
      await s.api("/archivist/iam/v1/memberships", { token: await s.token(s.a) }),
    );
    expect(app.memberships).toEqual([]);
    expect((await s.api("/archivist/iam/v1/memberships")).status).toBe(401);
  });
});

describe("members", () => {
  it("pages the list with page_token and next_page_token, and refuses unknown member_state", async () => {
    const owner = await member("olive@a.example");
    const first = await json<MemberList>(await s.api(`${MEMBERS}?page_size=2`, { token: owner }));
    expect(first.members).toHaveLength(2);
    expect(first.page_token).not.toBe("");
    expect(first.next_page_token).toBe(first.page_token);
    const second = await json<MemberList>(
      await s.api(`${MEMBERS}?page_token=${encodeURIComponent(first.page_token)}`, { token: owner }),
    );
    expect(second.members.length).toBeGreaterThanOrEqual(1);
    const bad = await s.api(`${MEMBERS}?member_state=SOMETIMES`, { token: owner });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain("member_state");
    // A name of Object.prototype is no state either (it listed the inactive members).
    expect((await s.api(`${MEMBERS}?member_state=constructor`, { token: owner })).status).toBe(400);
  });

  it("needs owner privileges: a basic member gets 403", async () => {
    const bob = await member("bob@a.example");
    const bobId = await memberId("bob@a.example");
    expect((await s.api(MEMBERS, { token: bob })).status).toBe(403);
    expect(
      (await s.api(`${MEMBERS}/${bobId}`, { method: "PATCH", token: bob, json: { roles: ["OWNER"] } }))
        .status,
    ).toBe(403);
    expect((await s.api(`${MEMBERS}/${bobId}:deactivate`, { method: "POST", token: bob })).status).toBe(403);
    expect((await s.api(`${MEMBERS}/${bobId}:activate`, { method: "POST", token: bob })).status).toBe(403);
  });

  it("PATCH replaces the roles: OWNER promotes at once, an empty list demotes, unknown roles are 400", async () => {
    const owner = await member("olive@a.example");
    const bob = await member("bob@a.example");
    const bobId = await memberId("bob@a.example");
    const up = await s.api(`${MEMBERS}/${bobId}`, {
      method: "PATCH",
      token: owner,
      json: { roles: ["OWNER"] },
    });
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({
      identity: `members/${bobId}`,
      display_name: "Bob",
      email: "bob@a.example",
      active: true,
      roles: ["OWNER"],
    });
    expect((await s.api(MEMBERS, { token: bob })).status).toBe(200);
    const bad = await s.api(`${MEMBERS}/${bobId}`, {
      method: "PATCH",
      token: owner,
      json: { roles: ["ADMIN"] },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain("roles[0]");
    expect(
      (await s.api(`${MEMBERS}/${bobId}`, { method: "PATCH", token: owner, json: { roles: "OWNER" } }))
        .status,
    ).toBe(400);
    const down = await json<Member>(
      await s.api(`${MEMBERS}/${bobId}`, { method: "PATCH", token: owner, json: { roles: [] } }),
    );
    expect(down.roles).toEqual([]);
    expect((await s.api(MEMBERS, { token: bob })).status).toBe(403);
  });

  it("deactivate strips roles and refuses the member's tokens; activate restores basic rights only", async () => {
    const owner = await member("olive@a.example");
    const carol = await member("carol@a.example");
    const carolId = await memberId("carol@a.example");
    await s.api(`${MEMBERS}/${carolId}`, { method: "PATCH", token: owner, json: { roles: ["OWNER"] } });
    expect((await s.api(MEMBERS, { token: carol })).status).toBe(200);

    const off = await s.api(`${MEMBERS}/${carolId}:deactivate`, { method: "POST", token: owner });
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ active: false, roles: [] });
    expect((await s.api("/archivist/iam/v1/memberships", { token: carol })).status).toBe(401);
    const active = await json<MemberList>(await s.api(MEMBERS, { token: owner }));
    expect(active.members.map((m) => m.email)).not.toContain("carol@a.example");
    const both = await json<MemberList>(
      await s.api(`${MEMBERS}?member_state=MEMBER_STATE_BOTH`, { token: owner }),
    );
    expect(both.members.find((m) => m.email === "carol@a.example")?.active).toBe(false);
    const inactive = await json<MemberList>(
      await s.api(`${MEMBERS}?member_state=MEMBER_STATE_INACTIVE`, { token: owner }),
    );
    expect(inactive.members.map((m) => m.email)).toEqual(["carol@a.example"]);

    const on = await s.api(`${MEMBERS}/${carolId}:activate`, { method: "POST", token: owner });
    expect(on.status).toBe(200);
    expect(await on.json()).toMatchObject({ active: true, roles: [] });
    expect((await s.api("/archivist/iam/v1/memberships", { token: carol })).status).toBe(200);
    expect((await s.api(MEMBERS, { token: carol })).status).toBe(403);
  });

  it("answers 404 for unknown members, malformed uuids and members of other tenancies; 401 without a token", async () => {
    const owner = await member("olive@a.example");
    const bobId = await memberId("bob@a.example");
    const unknown = "7d1e4a4e-0000-4000-8000-000000000000";
    for (const path of [`${MEMBERS}/${unknown}`, `${MEMBERS}/not-a-uuid`])
      expect((await s.api(path, { method: "PATCH", token: owner, json: { roles: [] } })).status).toBe(404);
    expect((await s.api(`${MEMBERS}/${unknown}:activate`, { method: "POST", token: owner })).status).toBe(
      404,
    );
    expect((await s.api(`${MEMBERS}/${unknown}:deactivate`, { method: "POST", token: owner })).status).toBe(
      404,
    );
    const other = await s.token(s.b);
    expect((await s.api(`${MEMBERS}/${bobId}:deactivate`, { method: "POST", token: other })).status).toBe(
      404,
    );
    expect(
      (await s.api(`${MEMBERS}/${bobId}`, { method: "PATCH", token: other, json: { roles: [] } })).status,
    ).toBe(404);
    expect((await s.api(`${MEMBERS}/${bobId}`, { method: "PATCH", json: { roles: [] } })).status).toBe(401);
    expect((await s.api(`${MEMBERS}/${bobId}:activate`, { method: "POST" })).status).toBe(401);
    expect((await s.api(`${MEMBERS}/${bobId}:deactivate`, { method: "POST" })).status).toBe(401);
  });
});

describe("invites", () => {
  async function invite(email: string, base = "/archivist/iam/v1/invites"): Promise<Invite> {
    const res = await s.api(base, {
      method: "POST",
      token: await s.token(s.a),
      json: { email, message: "Welcome aboard" },
    });
    expect(res.status).toBe(200);
    return json<Invite>(res);
  }

  async function mailTo(email: string): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const found = smtp.mails.map(unQuote).find((m) => m.includes(`To: ${email}`));
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no mail to ${email}`);
  }

  it("creates under both path forms, expiring in 7 days, and e-mails the accept URL and code", async () => {
    const before = Date.now();
    const a = await invite("dave@a.example", "/archivist/v1/invites");
    expect(a.identity).toMatch(/^invites\/[0-9a-f-]{36}$/);
    expect(a).toMatchObject({ email: "dave@a.example", message: "Welcome aboard" });
    const expiry = Date.parse(a.expiry_time);
    expect(expiry - before).toBeGreaterThan(7 * 86400_000 - 60_000);
    expect(expiry - before).toBeLessThan(7 * 86400_000 + 60_000);
    const mail = await mailTo("dave@a.example");
    expect(mail).toContain("From: archivist@example.org");
    expect(mail).toContain(`${a.identity}:accept`);
    expect(mail).toContain(a.code);
    expect(mail).toContain("Welcome aboard");

    const token = await s.token(s.a);
    for (const base of ["/archivist/v1/invites", "/archivist/iam/v1/invites"]) {
      const list = await json<{ invites: Invite[]; next_page_token: string }>(await s.api(base, { token }));
      expect(list.invites.map((i) => i.identity)).toContain(a.identity);
      expect(list.invites.every((i) => !("code" in i))).toBe(true);
      const one = await s.api(`${base}/${a.identity.slice(8)}`, { token });
      expect(one.status).toBe(200);
      expect(await one.json()).toEqual({
        identity: a.identity,
        email: a.email,
        message: a.message,
        expiry_time: a.expiry_time,
      });
    }
    const filtered = await json<{ invites: Invite[] }>(
      await s.api("/archivist/v1/invites?email=nobody@a.example", { token }),
    );
    expect(filtered.invites).toEqual([]);
    expect((await s.api("/archivist/v1/invites?page_size=0", { token })).status).toBe(400);
  });

  it("validates the e-mail (400 naming it) and refuses inviting an active member", async () => {
    const token = await s.token(s.a);
    for (const json of [{}, { email: "not-an-email" }, { email: 7 }]) {
      const res = await s.api("/archivist/iam/v1/invites", { method: "POST", token, json });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain("email");
    }
    const dup = await s.api("/archivist/iam/v1/invites", {
      method: "POST",
      token,
      json: { email: "olive@a.example" },
    });
    expect(dup.status).toBe(400);
  });

  it("accepting with the code creates an active member without roles and deletes the invite", async () => {
    const inv = await invite("erin@a.example");
    const id = inv.identity.slice(8);
    const accept = (body: unknown, uuid = id) =>
      s.api(`/archivist/iam/v1/invites/${uuid}:accept`, { method: "POST", json: body });
    const erin = await member("erin@a.example");
    expect((await s.api("/archivist/iam/v1/memberships", { token: erin })).status).toBe(401);

    const wrong = await accept({ code: "not-the-code" });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { message: string }).message).toContain("code");
    expect((await accept({})).status).toBe(400);
    expect((await accept({ code: inv.code }, "7d1e4a4e-0000-4000-8000-000000000000")).status).toBe(404);

    const ok = await accept({ code: inv.code, display_name: "Erin" });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      display_name: "Erin",
      email: "erin@a.example",
      active: true,
      roles: [],
    });
    expect((await s.api(`/archivist/iam/v1/invites/${id}`, { token: await s.token(s.a) })).status).toBe(404);
    expect((await accept({ code: inv.code })).status).toBe(404);
    expect((await s.api("/archivist/iam/v1/memberships", { token: erin })).status).toBe(200);
    expect((await s.api(MEMBERS, { token: erin })).status).toBe(403);
  });

  it("refuses an expired invite with 400", async () => {
    const inv = await invite("frank@a.example");
    const id = inv.identity.slice(8);
    await s.service.ctx.db.query(
      "update invites set expiry_time = now() - interval '1 minute' where id = $1",
      [id],
    );
    const res = await s.api(`/archivist/v1/invites/${id}:accept`, {
      method: "POST",
      json: { code: inv.code },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("expired");
  });

  it("DELETE answers {} and withdraws; 403 for basic members, 404 elsewhere, 401 without a token", async () => {
    const inv = await invite("gina@a.example");
    const id = inv.identity.slice(8);
    const bob = await member("bob@a.example");
    const other = await s.token(s.b);
    for (const base of ["/archivist/v1/invites", "/archivist/iam/v1/invites"]) {
      expect((await s.api(base, { token: bob })).status).toBe(403);
      expect((await s.api(`${base}/${id}`, { token: bob })).status).toBe(403);
      expect((await s.api(base, { method: "POST", token: bob, json: { email: "x@a.example" } })).status).toBe(
        403,
      );
      expect((await s.api(`${base}/${id}`, { method: "DELETE", token: bob })).status).toBe(403);
      expect((await s.api(`${base}/${id}`, { token: other })).status).toBe(404);
      expect((await s.api(`${base}/${id}`, { method: "DELETE", token: other })).status).toBe(404);
      expect((await s.api(`${base}/not-a-uuid`, { token: await s.token(s.a) })).status).toBe(404);
      expect((await s.api(base)).status).toBe(401);
      expect((await s.api(`${base}/${id}`)).status).toBe(401);
      expect((await s.api(`${base}/${id}`, { method: "DELETE" })).status).toBe(401);
      expect((await s.api(base, { method: "POST", json: { email: "x@a.example" } })).status).toBe(401);
    }
    const del = await s.api(`/archivist/v1/invites/${id}`, { method: "DELETE", token: await s.token(s.a) });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({});
    expect(
      (await s.api(`/archivist/iam/v1/invites/${id}`, { method: "DELETE", token: await s.token(s.a) }))
        .status,
    ).toBe(404);
    const gone = await s.api(`/archivist/v1/invites/${id}:accept`, {
      method: "POST",
      json: { code: inv.code },
    });
    expect(gone.status).toBe(404);
  });
});
