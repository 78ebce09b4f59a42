import { ConserverError } from "../../../plugins/conserver/errors.js";

/** The ConserverError code `f` throws ("other" for any other throw), or undefined when it does not throw. */
export function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    return err instanceof ConserverError ? err.code : "other";
  }
  return undefined;
}
