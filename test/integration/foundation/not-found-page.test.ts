import { describe, expect, it } from "vitest";
import { serviceForSuite } from "../../helpers/service.js";

const suite = serviceForSuite();

describe("unknown paths", () => {
  it("answer a browser with an HTML page and its way back, the path escaped", async () => {
    const r = await suite.s.api("/consol<e>?x=1", {
      headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(r.status).toBe(404);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    const body = await r.text();
    expect(body).toContain("Page not found");
    expect(body).toContain('href="/console"');
    expect(body).not.toContain("<e>");
  });

  it("answer API clients (JSON, */*, no Accept) with the JSON error body", async () => {
    for (const accept of ["application/json", "*/*", undefined]) {
      const r = await suite.s.api("/archivist/v2/nope", accept ? { headers: { accept } } : {});
      expect(r.status, String(accept)).toBe(404);
      expect(r.headers.get("content-type"), String(accept)).toMatch(/^application\/json/);
      expect(((await r.json()) as { message: string }).message).toMatch(/no route for GET/);
    }
    const post = await suite.s.api("/nope", { method: "POST", headers: { accept: "text/html" } });
    expect(post.headers.get("content-type")).toMatch(/^application\/json/);
  });
});
