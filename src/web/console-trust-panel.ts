import { noTrust, type TrustRoots } from "../verify/index.js";
import { consoleTrustRoots, NO_TRUST_INPUT, type TrustInput } from "./console-trust.js";
import { byId } from "./render.js";

const trustField = (id: string) => byId<HTMLInputElement | HTMLTextAreaElement>(id).value;

/**
 * The trust-roots panel: its fields read as roots when applied (`use`, with the fields they were
 * read from), refused whole when any cannot be read (`refuse`), cleared by "Forget them"; a
 * policy file chosen or dropped fills the policy field.
 */
export function wireTrustPanel(
  use: (roots: TrustRoots, input: TrustInput) => void,
  refuse: (message: string) => void,
): void {
  byId<HTMLFormElement>("trust-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const input: TrustInput = {
      policy: trustField("trust-policy"),
      fingerprints: trustField("trust-fingerprints"),
      logKey: trustField("trust-log-key"),
      witnesses: trustField("trust-witnesses"),
      quorum: trustField("trust-quorum"),
    };
    let roots: TrustRoots;
    try {
      roots = consoleTrustRoots(input);
    } catch (err) {
      return refuse((err as Error).message);
    }
    use(roots, input);
  });
  byId<HTMLButtonElement>("trust-clear").addEventListener("click", () => {
    for (const id of [
      "trust-policy",
      "trust-fingerprints",
      "trust-log-key",
      "trust-witnesses",
      "trust-quorum",
    ])
      byId<HTMLInputElement>(id).value = "";
    use(noTrust(), NO_TRUST_INPUT);
  });
  /** A policy file chosen or dropped: its text goes into the policy field, to be read and applied. */
  async function policyFile(file: File | undefined): Promise<void> {
    if (!file) return;
    byId<HTMLTextAreaElement>("trust-policy").value = await file.text();
  }
  const policyInput = byId<HTMLInputElement>("trust-policy-file");
  policyInput.addEventListener("change", () => void policyFile(policyInput.files?.[0]));
  byId<HTMLTextAreaElement>("trust-policy").addEventListener("dragover", (e) => e.preventDefault());
  byId<HTMLTextAreaElement>("trust-policy").addEventListener("drop", (e) => {
    e.preventDefault();
    void policyFile(e.dataTransfer?.files[0]);
  });
}
