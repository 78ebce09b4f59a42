import { type CborValue, encodeCbor } from "../../formats/cbor/encode.js";
import { cnfClaimOf } from "../../formats/cose/cnf-key.js";
import { VDS_MMR } from "../../formats/cose/receipt.js";
import { ES256, HEADER } from "../../formats/cose/sign1.js";
import type { EcJwk } from "../../formats/crypto/public-key.js";

const KEPT = 256;

const enc = new TextEncoder();

/**
 * The protected header every receipt of one log and profile shares (`vds` names the profile).
 * With `key`, its CWT claims carry it in `cnf` (DataTrails' clients verify with the key found
 * there; ours only compare it with the key they pinned).
 */
export function receiptProtectedHeader(
  kid: string,
  issuer: string,
  subject: string,
  vds = VDS_MMR,
  key?: EcJwk,
): Uint8Array {
  return encodeCbor(
    new Map<CborValue, CborValue>([
      [HEADER.alg, ES256],
      [HEADER.kid, enc.encode(kid)],
      [HEADER.vds, vds],
      [
        HEADER.cwtClaims,
        new Map<CborValue, CborValue>([
          [1, issuer],
          [2, subject],
          ...(key ? [[8, cnfClaimOf(key)] as [CborValue, CborValue]] : []),
        ]),
      ],
    ]),
  );
}

/**
 * Encoded receipt protected headers, kept by a caller that signs many receipts (the service keeps
 * one per context): every receipt of one log and profile shares its header (kid, issuer, subject,
 * vds), so it is encoded once. The last one is checked first, without building a key, since
 * receipts usually come in runs for one log.
 */
export class ReceiptHeaders {
  private readonly encoded = new Map<string, Uint8Array>();
  private last: {
    kid: string;
    issuer: string;
    subject: string;
    vds: number;
    carried: string;
    bytes: Uint8Array;
  } = {
    kid: "",
    carried: "",
    issuer: "",
    subject: "",
    vds: 0,
    bytes: new Uint8Array(),
  };

  get(kid: string, issuer: string, subject: string, vds: number, key?: EcJwk): Uint8Array {
    const last = this.last;
    // A kid names one key, but the header is only right with that key's coordinates in it.
    const carried = key ? `${key.x}.${key.y}` : "";
    if (
      last.bytes.length > 0 &&
      carried === last.carried &&
      kid === last.kid &&
      issuer === last.issuer &&
      subject === last.subject &&
      vds === last.vds
    )
      return last.bytes;
    // Length prefixes keep the key unambiguous whatever characters the parts contain.
    const name = `${vds}:${carried}:${kid.length}:${kid}${issuer.length}:${issuer}${subject}`;
    let bytes = this.encoded.get(name);
    if (!bytes) {
      bytes = receiptProtectedHeader(kid, issuer, subject, vds, key);
      if (this.encoded.size >= KEPT) this.encoded.clear();
      this.encoded.set(name, bytes);
    }
    this.last = { kid, issuer, subject, vds, carried, bytes };
    return bytes;
  }
}
