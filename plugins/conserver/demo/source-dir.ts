import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The plugin's source folder (`.../plugins/conserver`), from any module in it or below: the sample
 * vCons ship beside the sources, so from `dist/` they are read from the source tree.
 */
function sourceDir(moduleUrl: string): string {
  const here = fileURLToPath(new URL(".", moduleUrl)).replace(/([/\\])dist([/\\])plugins/, "$1plugins");
  const m = /^(.*[/\\]plugins[/\\]conserver)(?:[/\\]|$)/.exec(here);
  if (!m?.[1]) throw new Error(`not inside plugins/conserver: ${here}`);
  return m[1];
}

/** The sample vCons of the demo (and of the `conserver` benchmark). */
export function demoVconsDir(): string {
  return join(sourceDir(import.meta.url), "demo", "vcons");
}
