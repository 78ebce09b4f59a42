import { describe, expect, it } from "vitest";
import { decodeReceipt } from "../../../src/formats/cose/index.js";
import { goAndService, goRunnable, runGoLines } from "../../helpers/go.js";
import { until } from "../../helpers/poll.js";
import { trustVectorKey } from "../../helpers/scitt-requests.js";
import { newAsset, postVconEvent, untilSealed } from "../../helpers/vcon-event.js";
import { vectorStatement } from "../../helpers/vector-key.js";

/*
 * The MMR receipts the service serves by default, read by a Go program that decodes them the way
 * DataTrails' verifiers do (fxamacker/cbor into the 396 / -1 list of {1: index, 2: path} maps that
 * go-datatrails-merklelog declares), recomputes the peak from the log's leaf and checks the ES256
 * signature: for an asset event, an asset-free event and a registered statement. The draft's bstr
 * form, still served on request, is what DataTrails' decoder refuses.
 */
interface GoIn {
  receipt: string;
  leaf: string;
  x: string;
  y: string;
}
interface GoOut {
  ok: boolean;
  index: number;
  path: number;
  peak: string;
  error?: string;
}

const suite = goAndService("mmrreceipt", {
  ARCHIVIST_SEAL_INTERVAL_MS: "100",
  ARCHIVIST_SCRAPI_WAIT_MS: "0",
});

const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

/** A receipt at `path`, once the record is sealed (the routes answer 409, the DataTrails form 202, before). */
async function receiptAt(path: string): Promise<Uint8Array> {
  return until(async () => {
    const r = await suite.s.api(path, { token: suite.token });
    if (r.status === 409 || r.status === 202 || r.status === 204) return undefined;
    expect(r.status, await r.clone().text()).toBe(200);
    return bytes(r);
  });
}

/** What the Go decoder is given for a receipt: the leaf the log holds at its index and the key by its kid. */
async function goInput(receipt: Uint8Array): Promise<GoIn> {
  const info = decodeReceipt(receipt);
  const tenant = info.subject.replace(/^tenant\//, "");
  const entry = (await (
    await suite.s.api(`/archivist/v1/merklelogs/${tenant}/entries/${info.mmrIndex}`, { token: suite.token })
  ).json()) as { leaf: string };
  const jwks = (await (await suite.s.api("/jwks")).json()) as {
    keys: Array<{ kid: string; x: string; y: string }>;
  };
  const key = jwks.keys.find((k) => k.kid === info.kid);
  if (!key) throw new Error(`no key ${info.kid}`);
  return { receipt: Buffer.from(receipt).toString("base64"), leaf: entry.leaf, x: key.x, y: key.y };
}

describe.runIf(goRunnable)("DataTrails' receipt structure reads the MMR receipts served by default", () => {
  it("of an asset event, an asset-free event and a registered statement", async () => {
    const asset = await newAsset(suite.s, suite.token);
    const event = await postVconEvent(
      suite.s,
      suite.token,
      asset,
      crypto.randomUUID(),
      "vcon_create",
      "2025-03-01",
    );
    const free = (await (
      await suite.s.api("/archivist/v1/events", {
        method: "POST",
        token: suite.token,
        json: { attributes: { k: "v" } },
      })
    ).json()) as { identity: string };
    await trustVectorKey(suite.s, suite.token);
    const statement = vectorStatement(0xcd, { subject: "vcon://0190b6a1-0000-7000-8000-000000000033" });
    const registered = await suite.s.api("/entries", {
      method: "POST",
      token: suite.token,
      headers: { "content-type": "application/cose" },
      body: Buffer.from(statement),
    });
    expect([201, 202]).toContain(registered.status);
    const entry = (registered.headers.get("location") ?? "").split("/").pop() as string;
    await untilSealed(suite.s, suite.token, asset);

    const paths = [
      `/archivist/v1/receipts/${event.identity}`,
      `/archivist/v1/receipts/${free.identity}`,
      `/archivist/v1/publicscitt/entries/${entry}/receipt`,
      `/entries/${entry}?profile=mmr`,
    ];
    const receipts = await Promise.all(paths.map(receiptAt));
    for (const r of receipts) expect(decodeReceipt(r).form).toBe("map");
    const inputs = await Promise.all(receipts.map(goInput));
    const out = await runGoLines<GoIn, GoOut>(suite.binary, inputs);
    expect(out.length).toBe(paths.length);
    for (const [i, o] of out.entries()) {
      const info = decodeReceipt(receipts[i] as Uint8Array);
      expect(o, paths[i]).toMatchObject({ ok: true, index: info.mmrIndex, path: info.path.length });
    }
    // A changed leaf recomputes another peak: the signature no longer holds.
    const wrongLeaf = { ...(inputs[0] as GoIn), leaf: "00".repeat(32) };
    expect((await runGoLines<GoIn, GoOut>(suite.binary, [wrongLeaf]))[0]).toMatchObject({ ok: false });
  });

  it("and refuses the draft's bstr form, served only on request", async () => {
    const free = (await (
      await suite.s.api("/archivist/v1/events", {
        method: "POST",
        token: suite.token,
        json: { attributes: { k: "bstr" } },
      })
    ).json()) as { identity: string };
    const bstr = await receiptAt(`/archivist/v1/receipts/${free.identity}?mmr_proof=bstr`);
    expect(decodeReceipt(bstr).form).toBe("bstr");
    const [o] = await runGoLines<GoIn, GoOut>(suite.binary, [await goInput(bstr)]);
    expect(o?.ok).toBe(false);
    expect(o?.error).toMatch(/cannot unmarshal byte string/);
    // The same entry by Accept parameter, and the map by default: both verify with our verifier.
    const byAccept = await suite.s.api(`/archivist/v1/receipts/${free.identity}`, {
      token: suite.token,
      headers: { accept: "application/cose; mmr_proof=bstr" },
    });
    expect(Buffer.from(await bytes(byAccept)).equals(Buffer.from(bstr))).toBe(true);
  });
});
