import { describe, expect, it } from "vitest";
import { serviceForSuite } from "../../helpers/service.js";

const suite = serviceForSuite();

interface ErrorBody {
  code: number;
  message: string;
  details: unknown[];
}

const post = (path: string, headers: Record<string, string>, body: string | Uint8Array<ArrayBuffer>) =>
  suite.s.api(path, {
    method: "POST",
    headers: { authorization: `Bearer ${suite.token}`, ...headers },
    body,
  });

const assetCount = async () => {
  const res = await suite.s.api("/archivist/v2/assets?page_size=1000", { token: suite.token });
  return ((await res.json()) as { assets: unknown[] }).assets.length;
};

describe("bodies a JSON route does not take (issue 31)", () => {
  it("a form body (curl -d) on POST /assets answers 415 naming its content type, and creates no asset", async () => {
    const before = await assetCount();
    const res = await post(
      "/archivist/v2/assets",
      { "content-type": "application/x-www-form-urlencoded" },
      "attributes=x&behaviours=RecordEvidence",
    );
    expect(res.status).toBe(415);
    const body = (await res.json()) as ErrorBody;
    expect(Object.keys(body).sort()).toEqual(["code", "details", "message"]);
    expect(body.message).toContain("application/x-www-form-urlencoded");
    expect(body.message).toContain("application/json");
    expect(await assetCount()).toBe(before);
    // An empty form is no body: 400, as an empty JSON body is, not an empty asset.
    const empty = await post(
      "/archivist/v2/assets",
      { "content-type": "application/x-www-form-urlencoded" },
      "",
    );
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as ErrorBody).message).toBe("request body is required");
    expect(await assetCount()).toBe(before);
  });

  it("answers 415 for text, CBOR and a body without a content type, on events and asset-free events too", async () => {
    const asset = (await (
      await suite.s.api("/archivist/v2/assets", {
        method: "POST",
        token: suite.token,
        json: { attributes: { k: "v" } },
      })
    ).json()) as { identity: string };
    const cases: Array<[string, Record<string, string>, string]> = [
      ["/archivist/v2/assets", { "content-type": "text/plain" }, "text/plain"],
      ["/archivist/v2/assets", { "content-type": "application/cbor" }, "application/cbor"],
      [
        `/archivist/v2/${asset.identity}/events`,
        { "content-type": "application/x-www-form-urlencoded" },
        "application/x-www-form-urlencoded",
      ],
      [
        "/archivist/v1/events",
        { "content-type": "application/x-www-form-urlencoded" },
        "application/x-www-form-urlencoded",
      ],
    ];
    for (const [path, headers, named] of cases) {
      const res = await post(path, headers, "operation=Record");
      expect(res.status, `${path} ${named}`).toBe(415);
      expect(((await res.json()) as ErrorBody).message).toContain(named);
    }
    // Bytes with no content-type header at all (fetch sends none for a Uint8Array body).
    const bare = await post("/archivist/v2/assets", {}, new TextEncoder().encode('{"attributes":{}}'));
    expect(bare.status).toBe(415);
    expect(((await bare.json()) as ErrorBody).message).toContain("without a content type");
  });

  it("still takes JSON with or without a charset, and +json types, as the real clients send", async () => {
    for (const type of [
      "application/json",
      "application/json; charset=utf-8",
      "application/merge-patch+json",
    ]) {
      const res = await post(
        "/archivist/v2/assets",
        { "content-type": type },
        JSON.stringify({ attributes: { t: type } }),
      );
      expect(res.status, type).toBe(200);
    }
  });

  it("the token endpoint still takes its form, and answers JSON with 415 naming the form", async () => {
    const { a } = suite.s;
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: a.clientId,
      client_secret: a.clientSecret,
    });
    const ok = await suite.s.api("/archivist/iam/v1/appidp/token", { method: "POST", body: form });
    expect(ok.status).toBe(200);
    const json = await suite.s.api("/archivist/iam/v1/appidp/token", {
      method: "POST",
      json: Object.fromEntries(form),
    });
    expect(json.status).toBe(415);
    const message = ((await json.json()) as ErrorBody).message;
    expect(message).toContain("application/x-www-form-urlencoded");
    expect(message).toContain("not application/json");
  });

  it("a verb posted without a body, or with an empty form (curl -X POST, curl -d ''), still answers", async () => {
    const app = (await (
      await suite.s.api("/archivist/iam/v1/applications", {
        method: "POST",
        token: suite.token,
        json: { display_name: "media types" },
      })
    ).json()) as { identity: string };
    const verb = `/archivist/iam/v1/${app.identity}:regenerate-secret`;
    expect((await suite.s.api(verb, { method: "POST", token: suite.token })).status).toBe(200);
    expect((await post(verb, { "content-type": "application/x-www-form-urlencoded" }, "")).status).toBe(200);
  });
});
