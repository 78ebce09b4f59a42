import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import {
  analysisDerivation,
  checkDerivation,
  PROVENANCE_CONTENT_TYPE,
} from "../../../../src/verify/lifecycle/provenance.js";

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const jcs = (v: unknown) => (canonicalize as unknown as (v: unknown) => string)(v);

/** The provenance member of the sample's analysis, to change. */
const prov = (v: { analysis: Array<Record<string, unknown>> }) =>
  (v.analysis[0] as Record<string, unknown>).provenance as Record<string, unknown>;

/** The IETF sample call with a summary analysis of its recording, as a generative model made it. */
function sample(): Record<string, unknown> & { dialog: unknown[]; analysis: Array<Record<string, unknown>> } {
  const vcon = JSON.parse(
    readFileSync(
      new URL("../../../fixtures/vcon/ietf-core03-ab_call_ext_rec.vcon.json", import.meta.url),
      "utf8",
    ),
  );
  vcon.analysis = [
    {
      type: "summary",
      dialog: 0,
      vendor: "example-ai",
      encoding: "none",
      body: "The customer asked about an extended warranty.",
      provenance: {
        model: "summarizer-2",
        provider: "example-ai",
        parameters: { temperature: 0.2, top_p: 0.9 },
        prompt_hash: `sha256:${sha("Summarise the call.")}`,
        inputs: [{ type: "dialog", index: 0, hash: `sha256:${sha(jcs(vcon.dialog[0]))}` }],
        output_hash: `sha256:${sha("The customer asked about an extended warranty.")}`,
      },
    },
  ];
  return vcon;
}

describe("AI provenance: the derivation of an analysis", () => {
  it("recomputes every hash from the vCon, and hashes the derivation's canonical JSON", () => {
    const vcon = sample();
    const d = analysisDerivation(vcon, 0);
    if (!d.ok) throw new Error(d.reason);
    expect(d.derivation).toEqual({
      vcon: "019f15a6-a752-826f-b9a2-279e0d16bc46",
      analysis: 0,
      type: "summary",
      vendor: "example-ai",
      model: "summarizer-2",
      provider: "example-ai",
      parameters: { temperature: 0.2, top_p: 0.9 },
      prompt_hash: `sha256:${sha("Summarise the call.")}`,
      inputs: [{ element: "dialog/0", sha256: sha(jcs(vcon.dialog[0])) }],
      output_sha256: sha("The customer asked about an extended warranty."),
    });
    expect(new TextDecoder().decode(d.preimage)).toBe(jcs(d.derivation));
    expect(d.hash).toBe(sha(jcs(d.derivation)));
  });

  it("refuses a provenance that does not hold: no model, an input not in the vCon, a stated hash that is not the element's", () => {
    const cases: Array<[string, (v: ReturnType<typeof sample>) => void, RegExp]> = [
      [
        "none",
        (v) => delete (v.analysis[0] as Record<string, unknown>).provenance,
        /has no provenance member/,
      ],
      ["no model", (v) => delete prov(v).model, /names no model/],
      [
        "missing input",
        (v) => (prov(v).inputs = [{ type: "dialog", index: 4 }]),
        /dialog\/4 is not in the vCon/,
      ],
      ["bad input", (v) => (prov(v).inputs = [{ type: "party", index: 0 }]), /names no element/],
      [
        "input changed",
        (v) => ((v.dialog[0] as Record<string, unknown>).duration = 1),
        /states for dialog\/0 is not the element's/,
      ],
      [
        "output changed",
        (v) => ((v.analysis[0] as Record<string, unknown>).body = "x"),
        /output hash its provenance states/,
      ],
    ];
    for (const [name, change, reason] of cases) {
      const v = sample();
      change(v);
      const d = analysisDerivation(v, 0);
      expect(d.ok, name).toBe(false);
      if (!d.ok) expect(d.reason, name).toMatch(reason);
    }
    expect(analysisDerivation(sample(), 3)).toEqual({ ok: false, reason: "the vCon has no analysis 3" });
  });

  it("checks an analysis against the registered derivation, naming what changed", () => {
    const vcon = sample();
    const d = analysisDerivation(vcon, 0);
    if (!d.ok) throw new Error(d.reason);
    const registered = {
      subject: `vcon://${d.derivation.vcon}`,
      payload: d.hash,
      payload_preimage_content_type: PROVENANCE_CONTENT_TYPE,
      provenance_analysis: "0",
      provenance_output_sha256: d.derivation.output_sha256,
    };
    expect(checkDerivation(vcon, 0, registered)).toMatchObject({ ok: true });
    // The output replaced afterwards, provenance and all: not the registered one.
    const rewritten = sample();
    const a = rewritten.analysis[0] as Record<string, unknown>;
    a.body = "The customer declined.";
    (a.provenance as Record<string, unknown>).output_hash = `sha256:${sha("The customer declined.")}`;
    expect(checkDerivation(rewritten, 0, registered)).toEqual({
      ok: false,
      reason:
        "analysis 0's output is not the one registered: it was changed after its derivation was recorded",
    });
    // Another model claimed for the same output.
    const other = sample();
    ((other.analysis[0] as Record<string, unknown>).provenance as Record<string, unknown>).model =
      "summarizer-3";
    expect(checkDerivation(other, 0, registered)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("derivation"),
    });
    expect(checkDerivation(vcon, 0, { ...registered, subject: "vcon://other" })).toMatchObject({ ok: false });
    expect(
      checkDerivation(vcon, 0, { ...registered, payload_preimage_content_type: "application/vcon+json" }),
    ).toMatchObject({ ok: false });
  });
});
