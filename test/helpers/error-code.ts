/** The `code` of the `kind` error `f` throws ("other" for any other throw), or undefined when it does not throw. */
export function errorCode(
  kind: abstract new (...args: never[]) => { code: string },
  f: () => unknown,
): string | undefined {
  try {
    f();
  } catch (err) {
    return err instanceof kind ? err.code : "other";
  }
  return undefined;
}
