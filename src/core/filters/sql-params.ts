/** Collects bind values and hands out their `$n` placeholders, starting at `firstParam`. */
export class SqlParams {
  readonly values: unknown[] = [];

  constructor(private readonly firstParam: number) {
    if (!Number.isSafeInteger(firstParam) || firstParam < 1)
      throw new RangeError("firstParam must be a positive integer");
  }

  /** Adds a value and returns its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.firstParam + this.values.length - 1}`;
  }

  /** Appends a fragment compiled from the next free placeholder on, and returns its SQL. */
  embed(compile: (firstParam: number) => SqlFragment): string {
    const fragment = compile(this.firstParam + this.values.length);
    this.values.push(...fragment.params);
    return fragment.sql;
  }
}

/** A parameterised SQL fragment: the text holds only placeholders, never input. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}
