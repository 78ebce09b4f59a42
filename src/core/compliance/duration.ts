const UNITS: Array<[name: string, seconds: number]> = [
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1],
];

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`;

/** Whole seconds in words with at most the two largest units: "3 days 4 hours", "0 seconds". */
export function describeSeconds(seconds: number): string {
  let rest = Math.max(0, Math.floor(seconds));
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(plural(count, unit));
    if (parts.length === 2) break;
  }
  return parts.length === 0 ? "0 seconds" : parts.join(" ");
}
