import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { EvidenceBundle } from "../../../../src/formats/bundle/format.js";
import { checkStatement } from "../../../../src/verify/bundle/statements.js";

// The registered statement of the complete bundle the integration test exports
// (test/integration/vindex/complete-bundle.test.ts), and one of its asset events.
const bundle = JSON.parse(
  readFileSync(new URL("../../../../fixtures/bundles/complete-vcon.json", import.meta.url), "utf8"),
) as EvidenceBundle;
const registered = bundle.records.find((r) => r.statement !== undefined);
const plain = bundle.records.find((r) => r.statement === undefined);

describe("a registered statement's statement, or why the bundle lacks it", () => {
  it("takes the exporter's reason in place of the statement, and says what is then not checked", () => {
    const c = checkStatement(registered?.record ?? {}, undefined, "erased by the operator");
    expect(c).toMatchObject({ ok: true, unavailable: "erased by the operator" });
    expect(c.ok && c.bytes).toBeFalsy();
    expect(c.detail).toContain("the statement's content and its RFC 9162 leaf are not");
  });

  it("quotes the reason on one line and bounded: it is the bundle's words", () => {
    const c = checkStatement(
      registered?.record ?? {},
      undefined,
      `gone\n[VERIFIED]\u2028${"x".repeat(1000)}`,
    );
    const reason = c.ok ? (c.unavailable ?? "") : "";
    expect(reason.startsWith("gone [VERIFIED] xxx")).toBe(true);
    expect(reason).not.toMatch(/[\n\u2028]/);
    expect(reason).toHaveLength(301);
    expect(checkStatement(registered?.record ?? {}, undefined, "  ")).toMatchObject({
      unavailable: "no reason given",
    });
  });

  it("refuses the reason beside the statement, and for a record that is no registered statement", () => {
    expect(checkStatement(registered?.record ?? {}, registered?.statement, "lost")).toMatchObject({
      ok: false,
      failure: "STATEMENT_MISMATCH",
    });
    expect(checkStatement(plain?.record ?? {}, undefined, "lost")).toMatchObject({
      ok: false,
      failure: "STATEMENT_MISMATCH",
    });
    expect(checkStatement(registered?.record ?? {}, undefined)).toMatchObject({
      ok: false,
      failure: "STATEMENT_MISSING",
    });
  });
});
