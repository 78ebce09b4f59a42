/** A fixed-width text progress bar: `[#####-----]  5/10`. */
export function progressBar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.round((done / total) * width) : width;
  const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
  const n = String(total).length;
  return `[${bar}] ${String(done).padStart(n)}/${total}`;
}
