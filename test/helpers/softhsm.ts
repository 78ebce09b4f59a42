import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Debian's SoftHSM2 module (package softhsm2; .ci/run installs it). */
const SOFTHSM_MODULE = "/usr/lib/softhsm/libsofthsm2.so";

/**
 * A fresh SoftHSM2 token in a temporary directory: its configuration is named by SOFTHSM2_CONF,
 * set in this process (the module reads it when it is initialised) and in `env` for children.
 */
export function softHsmToken(label = "archivist-test"): {
  env: Record<string, string>;
  close(): void;
} {
  if (!existsSync(SOFTHSM_MODULE))
    throw new Error(`SoftHSM2 is not installed (${SOFTHSM_MODULE}): apt-get install softhsm2`);
  const dir = mkdtempSync(join(tmpdir(), "archivist-softhsm-"));
  mkdirSync(join(dir, "tokens"));
  const conf = join(dir, "softhsm2.conf");
  writeFileSync(
    conf,
    `directories.tokendir = ${join(dir, "tokens")}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`,
  );
  const pin = "4321";
  execFileSync(
    "softhsm2-util",
    ["--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", "8765"],
    {
      env: { ...process.env, SOFTHSM2_CONF: conf },
      stdio: "ignore",
    },
  );
  process.env.SOFTHSM2_CONF = conf;
  return {
    env: {
      SOFTHSM2_CONF: conf,
      ARCHIVIST_KEY_BACKEND: "pkcs11",
      ARCHIVIST_PKCS11_MODULE: SOFTHSM_MODULE,
      ARCHIVIST_PKCS11_TOKEN: label,
      ARCHIVIST_PKCS11_PIN: pin,
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
