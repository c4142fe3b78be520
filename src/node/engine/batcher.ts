// Events leave the engine in numbered batches: one per interval (about an animation frame or a few),
// or sooner when many pile up. Every batch of the current run is kept so a client that reconnects
// can ask for what it missed (`run.events(afterSeq)`).
import type { EventBatch } from '../../common/api.js';
import type { RunEvent } from '../../common/events.js';

export class EventBatcher {
  private pending: RunEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private batches: EventBatch[] = [];
  private seq = 0;

  constructor(
    readonly runId: string,
    private readonly deliver: (batch: EventBatch) => void,
    private readonly intervalMs = 100,
    private readonly maxEvents = 1000,
  ) {}

  push(event: RunEvent): void {
    this.pending.push(event);
    if (this.pending.length >= this.maxEvents) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending.length) return;
    const batch: EventBatch = { runId: this.runId, seq: ++this.seq, events: this.pending };
    this.pending = [];
    this.batches.push(batch);
    this.deliver(batch);
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** The batches after `afterSeq` (seq starts at 1, so 0 means all). */
  after(afterSeq: number): EventBatch[] {
    // Batches are numbered 1, 2, 3 … in this array's order.
    return this.batches.slice(Math.max(0, afterSeq));
  }
}
