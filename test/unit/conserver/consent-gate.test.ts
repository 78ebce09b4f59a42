import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { DeliveryBackend, DeliveryJob } from "../../../plugins/conserver/delivery/job.js";
import { ConserverError } from "../../../plugins/conserver/errors.js";
import * as gate from "../../../plugins/conserver/links/consent-gate.js";
import type { ConsentSource } from "../../../plugins/conserver/links/consent-source.js";
import type { LinkContext } from "../../../plugins/conserver/links/types.js";
import type { AddOptions, JobQueue } from "../../../plugins/conserver/queue/index.js";
import { MemoryVconStore } from "../../../plugins/conserver/store/memory-store.js";
import { parseVcon } from "../../../plugins/conserver/vcon.js";
import type { Consent } from "../../../src/client/index.js";

const UUID = "0190f2a3-0000-7000-8000-0000000000aa";
const VCON = `{"uuid":"${UUID}","created_at":"2024-03-01T10:00:00Z","parties":[]}`;
const BACKEND = { url: "https://arch.example", client_id: "cid", client_secret: "sec" };

class Queue implements JobQueue<DeliveryJob> {
  readonly name = "q";
  readonly attempts = 1;
  readonly added: Array<{ data: DeliveryJob; opts?: AddOptions }> = [];
  async add(_name: string, data: DeliveryJob, opts?: AddOptions) {
    this.added.push({ data, ...(opts ? { opts } : {}) });
  }
  process() {}
  async counts() {
    return { waiting: 0, delayed: 0, active: 0, failed: 0 };
  }
  async close() {}
}

/**
 * A consent source answering what the test says, and remembering what it was asked: a
 * verification is recorded (as the service does) only when the answer says granted.
 */
function source(answer: Consent | undefined) {
  const asked: Array<{ backend: DeliveryBackend; uuid: string; purpose: string; operation?: string }> = [];
  const s: ConsentSource = {
    async consent(backend, uuid, purpose) {
      asked.push({ backend, uuid, purpose });
      return answer;
    },
    async verify(backend, uuid, purpose, operation) {
      asked.push({ backend, uuid, purpose, operation });
      const c = answer?.consents.find((x) => x.purpose === purpose);
      if (!answer || !c)
        return answer && { vcon: answer.vcon, purpose, state: "never_asked", verification: null };
      return {
        vcon: answer.vcon,
        purpose,
        state: c.state,
        ...(c.decided_by ? { decided_by: c.decided_by } : {}),
        verification: c.state === "granted" ? "assets/a/events/v" : null,
      };
    },
  };
  return { s, asked };
}

function context(consent: ConsentSource | undefined) {
  const store = new MemoryVconStore();
  store.set("k-1", parseVcon(VCON));
  const queue = new Queue();
  const ctx: LinkContext = {
    store,
    log: pino({ level: "silent" }),
    defaultHashMode: "python-json",
    deliveryQueue: queue,
    ...(consent ? { consent } : {}),
  };
  return { ctx, queue };
}

const answer = (state: "granted" | "revoked" | "never_asked", decided?: string): Consent => ({
  vcon: `vcon://${UUID}`,
  holder: "tenant/00000000-0000-4000-8000-000000000001",
  consents: [{ purpose: "ai", state, ...(decided ? { decided_by: decided } : {}), records: [] }],
  records: [],
  foreign: [],
});

async function refusal(p: Promise<unknown>): Promise<ConserverError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ConserverError) return err;
    throw err;
  }
  throw new Error("the gate let the vCon through");
}

describe("consent gate link", () => {
  it("lets the vCon on when the purpose's consent is granted and the backend recorded the verification, asking by the vCon's own uuid", async () => {
    const { s, asked } = source(answer("granted", "assets/a/events/g"));
    const { ctx, queue } = context(s);
    expect(
      await gate.run(
        "k-1",
        "gate",
        { purpose: "ai", operation: "model_training_initiated", backend: BACKEND },
        ctx,
      ),
    ).toBe("k-1");
    expect(asked).toEqual([
      {
        backend: expect.objectContaining({ url: BACKEND.url }),
        uuid: UUID,
        purpose: "ai",
        operation: "vcon_model_training_initiated",
      },
    ]);
    expect(queue.added).toEqual([]);
  });

  it("only asks, recording no verification, when told not to record one", async () => {
    const { s, asked } = source(answer("granted", "assets/a/events/g"));
    const { ctx } = context(s);
    expect(
      await gate.run("k-1", "gate", { purpose: "ai", backend: BACKEND, record_verification: false }, ctx),
    ).toBe("k-1");
    expect(asked).toEqual([
      { backend: expect.objectContaining({ url: BACKEND.url }), uuid: UUID, purpose: "ai" },
    ]);
  });

  it("refuses a revoked purpose: records the refusal and throws the reason, for the DLQ", async () => {
    const { s } = source(answer("revoked", "assets/a/events/r"));
    const { ctx, queue } = context(s);
    const err = await refusal(
      gate.run("k-1", "gate", { purpose: "ai", operation: "inference_performed", backend: BACKEND }, ctx),
    );
    expect(err.code).toBe("CONSENT_REFUSED");
    expect(err.message).toBe(
      "vcon_inference_performed refused: consent for ai was revoked (assets/a/events/r)",
    );
    expect(err.details).toMatchObject({ purpose: "ai", state: "revoked", decided_by: "assets/a/events/r" });
    const [job] = queue.added;
    expect(job?.data.event.event_attributes).toMatchObject({
      vcon_operation: "vcon_processing_refused.ai",
      consent_purpose: "ai",
      refused_operation: "vcon_inference_performed",
      refusal_reason: "consent for ai was revoked (assets/a/events/r)",
      subject: `vcon://${UUID}`,
    });
    expect(job?.opts?.jobId).toBe(job?.data.idempotencyKey);
  });

  it("refuses a purpose never granted, or a vCon the link may not read, and records nothing when told not to", async () => {
    const never = context(source(answer("never_asked")).s);
    expect(
      (await refusal(gate.run("k-1", "g", { purpose: "ai", backend: BACKEND }, never.ctx))).message,
    ).toBe("vcon_inference_performed refused: consent for ai was never granted");
    const unread = context(source(undefined).s);
    const err = await refusal(
      gate.run("k-1", "g", { purpose: "ai", backend: BACKEND, record_refusal: false }, unread.ctx),
    );
    expect(err.message).toContain(`no record of vcon://${UUID} that the link may read`);
    expect(unread.queue.added).toEqual([]);
  });

  it("fails as a configuration error without one purpose, a backend or the runtime's consent source", async () => {
    const { ctx } = context(source(answer("granted")).s);
    for (const options of [{ backend: BACKEND }, { purpose: "a,b", backend: BACKEND }, { purpose: "ai" }])
      expect((await refusal(gate.run("k-1", "g", options, ctx))).code, JSON.stringify(options)).toBe(
        "LINK_OPTIONS",
      );
    expect(
      (await refusal(gate.run("k-1", "g", { purpose: "ai", backend: BACKEND }, context(undefined).ctx))).code,
    ).toBe("LINK_CONTEXT");
  });
});
