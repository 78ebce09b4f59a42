import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const jcs = (v: unknown) => (canonicalize as unknown as (v: unknown) => string)(v);

/**
 * A vCon analysis: the summary `body` a generative model made of the vCon's first dialog, with
 * the provenance (model, prompt, input and output hashes) the provenance link registers.
 */
export function modelSummary(vcon: { dialog: unknown[] }, body: string): Record<string, unknown> {
  return {
    type: "summary",
    dialog: 0,
    vendor: "example-ai",
    encoding: "none",
    body,
    provenance: {
      model: "summarizer-2",
      provider: "example-ai",
      parameters: { temperature: 0.2 },
      prompt_hash: `sha256:${sha("Summarise the call.")}`,
      inputs: [{ type: "dialog", index: 0, hash: `sha256:${sha(jcs(vcon.dialog[0]))}` }],
      output_hash: `sha256:${sha(body)}`,
    },
  };
}
