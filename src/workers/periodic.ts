import type { Logger } from "pino";

/** Runs `tick` every `intervalMs`, never overlapping itself; errors are logged and retried next tick. */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly tick: () => Promise<void>,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
  }

  /** Runs one tick now (or joins the one in flight). */
  runOnce(): Promise<void> {
    this.running ??= this.tick()
      .catch((err: unknown) => this.log.error({ err, worker: this.name }, "worker tick failed"))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
