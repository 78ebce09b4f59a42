import { describe, expect, it } from "vitest";
import { lifecycleOrder } from "../../../../src/formats/lifecycle/consent.js";
import { custodyHops } from "../../../../src/verify/lifecycle/custody.js";

const payload = "ab".repeat(32);
function rec(op: string, attrs: Record<string, unknown> = {}) {
  return {
    identity: `assets/a/events/${op}`,
    event_attributes: { vcon_operation: op, subject: "vcon://v", payload, transfer_id: "t", ...attrs },
    timestamp_accepted: "2026-01-01T00:00:00Z",
  };
}
const peer = (op: string, attrs: Record<string, unknown> = {}) => JSON.stringify(rec(op, attrs));

describe("custody hops: what the other party's proof must be before its receipt is even checked", () => {
  it("lists each transfer, and one that carries no proof as such", () => {
    const hops = custodyHops(
      lifecycleOrder([rec("vcon_created"), rec("vcon_sent", { transfer_peer: "https://b.example" })]),
    );
    expect(hops).toEqual([
      {
        identity: "assets/a/events/vcon_sent",
        direction: "sent",
        transfer_id: "t",
        peer: "https://b.example",
        at: "2026-01-01T00:00:00.000Z",
        proof: { state: "none" },
      },
    ]);
  });

  it("refuses a proof of another vCon, other content, another transfer, or a sent confirmed by anything but a vcon_received", () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ transfer_peer_record: "{", transfer_peer_receipt: "" }, /not a JSON object/],
      [
        { transfer_peer_record: peer("vcon_received", { subject: "vcon://w" }) },
        /is of vcon:\/\/w, not vcon:\/\/v/,
      ],
      [{ transfer_peer_record: peer("vcon_received", { payload: "cd".repeat(32) }) }, /other content/],
      [{ transfer_peer_record: peer("vcon_received", { transfer_id: "u" }) }, /of transfer u, not t/],
      [{ transfer_peer_record: peer("vcon_created") }, /confirmed by the receiver's vcon_received/],
      [{ transfer_peer_record: peer("vcon_received"), transfer_peer_receipt: "!!" }, /not base64/],
      [{ transfer_peer_record: peer("vcon_received"), transfer_peer_receipt: "AAAA" }, /no keys/],
    ];
    for (const [attrs, reason] of cases) {
      const [hop] = custodyHops(lifecycleOrder([rec("vcon_sent", attrs)]));
      expect(hop?.proof, String(reason)).toMatchObject({
        state: "failed",
        reason: expect.stringMatching(reason),
      });
    }
  });
});
