import { KeyDirectory, type Manifest } from "../../keys/key-directory.js";

/**
 * Every purpose's manifest in the key directory, current and retired keys: the directory alone,
 * no database, so `archivist keys list` runs beside a running embedded service too.
 */
export async function keyManifests(keyDir: string): Promise<Array<Manifest | undefined>> {
  const dir = new KeyDirectory(keyDir);
  const out: Array<Manifest | undefined> = [];
  for (const p of await dir.purposes()) out.push(await dir.manifest(p));
  return out;
}
