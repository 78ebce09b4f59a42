import { describe, expect, it } from "vitest";
import {
  NOTICE_ATTEMPTS,
  noticeBody,
  noticeHeaders,
  noticeRetryDelayMs,
  revocationOf,
  signingSecret,
} from "../../../../src/services/lifecycle/revocation-notice.js";

describe("revocation notices", () => {
  it("signs as Standard Webhooks does (the specification's example)", () => {
    // standard-webhooks/spec: secret, id, timestamp and payload of its signature example.
    const h = noticeHeaders(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      '{"test": 2432232314}',
    );
    expect(h).toEqual({
      "content-type": "application/json",
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    });
    // Key bytes 0..31, signed "msg_1.1700000000.{"a":1}" (computed apart with Python's hmac).
    const secret = signingSecret(Uint8Array.from({ length: 32 }, (_, i) => i));
    expect(secret).toBe("whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=");
    expect(noticeHeaders(secret, "msg_1", 1700000000, '{"a":1}')["webhook-signature"]).toBe(
      "v1,AMaOha7DUT/0J0JMycRuYOBSvbx3WtwLd2khXXbaVj4=",
    );
  });

  it("reads a revocation the way every producer writes it, and nothing else", () => {
    const subject = "vcon://0190f2a3-0000-7000-8000-0000000000aa";
    expect(
      revocationOf({
        event_attributes: { vcon_operation: "vcon_consent_revoked", subject, consent_purpose: "a,b" },
      }),
    ).toEqual({ vcon: subject, purposes: ["a", "b"] });
    expect(
      revocationOf({ event_attributes: { arc_display_type: "vcon_consent_revoked.ai", subject } }),
    ).toEqual({
      vcon: subject,
      purposes: ["ai"],
    });
    // No purpose: every purpose.
    expect(revocationOf({ event_attributes: { vcon_operation: "vcon_consent_revoked", subject } })).toEqual({
      vcon: subject,
      purposes: [],
    });
    expect(
      revocationOf({ event_attributes: { vcon_operation: "vcon_consent_accepted", subject } }),
    ).toBeUndefined();
    expect(
      revocationOf({ event_attributes: { vcon_operation: "vcon_consent_revoked_x", subject } }),
    ).toBeUndefined();
    expect(revocationOf({ event_attributes: { vcon_operation: "vcon_consent_revoked" } })).toBeUndefined();
  });

  it("says what was revoked, the same on every attempt, and backs off to a limit", () => {
    const body = noticeBody({
      id: "n1",
      revocation: "assets/a/events/r",
      vcon: "vcon://v",
      purposes: [],
      revokedAt: "2026-01-01T00:00:00.000Z",
      service: "https://ts.example",
    });
    expect(JSON.parse(body)).toEqual({
      type: "vcon.consent.revoked",
      notice: "n1",
      vcon: "vcon://v",
      purposes: [],
      all_purposes: true,
      revocation: "assets/a/events/r",
      revoked_at: "2026-01-01T00:00:00.000Z",
      service: "https://ts.example",
    });
    expect([1, 2, 3, 4].map((n) => noticeRetryDelayMs(n))).toEqual([5000, 10000, 20000, 40000]);
    expect(noticeRetryDelayMs(11)).toBe(3_600_000);
    expect(noticeRetryDelayMs(NOTICE_ATTEMPTS)).toBeUndefined();
    expect(noticeRetryDelayMs(2, 50)).toBe(100);
  });
});
