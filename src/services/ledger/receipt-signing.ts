import type { Ctx } from "../../context.js";
import { buildReceipt, buildRfc9162Receipt } from "../../core/log/receipt.js";
import type { Signer } from "../../core/log/sign1.js";
import type { MmrProofForm } from "../../formats/cose/receipt.js";
import type { PublicKey } from "../../formats/crypto/public-key.js";
import { signedOnce } from "../../keys/signature-memo.js";
import type { EntryRow } from "../../store/ledger/ledger.js";

/** The seal key a receipt is signed with: named by its kid, carried in the receipt's `cnf`. */
interface ReceiptKey {
  kid: string;
  verifier: PublicKey;
}

/**
 * What a record's receipt says, ready for the seal key's signer: one record's receipt (`receiptFor`)
 * and a bundle's many (`receiptsInBulk`) are the same bytes, whoever gathered the proof.
 */
export function mmrReceiptSigning(
  ctx: Pick<Ctx, "baseUrl" | "caches">,
  key: ReceiptKey,
  tenantId: string,
  e: Pick<EntryRow, "idtimestamp" | "mmr_index">,
  proof: { path: Uint8Array[]; peak: Uint8Array; form: MmrProofForm },
): (signer: Signer) => Uint8Array {
  return (signer) =>
    buildReceipt(
      {
        kid: key.kid,
        key: key.verifier.jwk,
        idtimestamp: e.idtimestamp,
        issuer: ctx.baseUrl,
        subject: `tenant/${tenantId}`,
        mmrIndex: e.mmr_index,
        ...proof,
      },
      signer,
      ctx.caches.receiptHeaders,
    );
}

/** The RFC 9162 receipt of the leaf at `leafIndex` in the tree of `treeSize`, ready for the signer. */
export function treeReceiptSigning(
  ctx: Pick<Ctx, "baseUrl" | "caches">,
  key: ReceiptKey,
  tenantId: string,
  proof: { treeSize: number; leafIndex: number; path: Uint8Array[]; root: Uint8Array },
): (signer: Signer) => Uint8Array {
  return (signer) =>
    buildRfc9162Receipt(
      { kid: key.kid, key: key.verifier.jwk, issuer: ctx.baseUrl, subject: `tenant/${tenantId}`, ...proof },
      signer,
      ctx.caches.receiptHeaders,
    );
}

/** A receipt signed by the seal key, its signature shared by every receipt of the same Sig_structure. */
export function signedReceipt(
  ctx: Pick<Ctx, "caches">,
  key: Parameters<typeof signedOnce>[1],
  build: (signer: Signer) => Uint8Array,
): Promise<Uint8Array> {
  return signedOnce(ctx.caches.receiptSignatures, key, build);
}
