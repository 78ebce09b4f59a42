import { VconError } from "../../../src/core/vcon/errors.js";

/** The VconError code `f` throws ("other" for any other throw), or undefined when it does not throw. */
export function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    return err instanceof VconError ? err.code : "other";
  }
  return undefined;
}
