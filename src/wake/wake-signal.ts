import { EventEmitter } from "node:events";

/** Wakes workers when work is waiting somewhere else (the database, a list). Lossy by design. */
export interface WakeSignal {
  notify(topic: string): Promise<void>;
  /** Calls `listener` on every notification; returns the unsubscribe function. */
  subscribe(listener: (topic: string) => void): () => void;
  /** Resolves true on a notification of `topic` (any topic if omitted), false after `timeoutMs`. */
  wait(timeoutMs: number, topic?: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Resolves true when `subscribe` delivers a matching topic, false after `timeoutMs`. */
export function waitOn(signal: WakeSignal, timeoutMs: number, topic?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (woken: boolean) => {
      clearTimeout(timer);
      off();
      resolve(woken);
    };
    const off = signal.subscribe((t) => {
      if (topic === undefined || t === topic) done(true);
    });
    const timer = setTimeout(() => done(false), timeoutMs);
  });
}

/** Wake-ups inside one process. */
export class LocalWakeSignal implements WakeSignal {
  private readonly events = new EventEmitter();

  constructor() {
    // Every waiting worker subscribes; their number is not a leak.
    this.events.setMaxListeners(0);
  }

  async notify(topic: string): Promise<void> {
    this.events.emit("wake", topic);
  }

  subscribe(listener: (topic: string) => void): () => void {
    this.events.on("wake", listener);
    return () => this.events.off("wake", listener);
  }

  wait(timeoutMs: number, topic?: string): Promise<boolean> {
    return waitOn(this, timeoutMs, topic);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}
