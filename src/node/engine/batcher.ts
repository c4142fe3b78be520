// Events leave the engine in numbered batches: one per interval (about an animation frame or a few),
// or sooner when many pile up. Only the latest batches are kept in memory, for a client that briefly
// lost its connection (`run.events(afterSeq)`); one that missed more gets the run rebuilt from the
// journal on disk instead (see runs/snapshot.ts).
import type { EventBatch } from '../../common/api.js';
import type { RunEvent } from '../../common/events.js';

export class EventBatcher {
  private pending: RunEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private batches: EventBatch[] = [];
  private keptEvents = 0;
  private seq = 0;

  constructor(
    readonly runId: string,
    private readonly deliver: (batch: EventBatch) => void,
    private readonly intervalMs = 100,
    private readonly maxEvents = 1000,
    /** Events kept for catching up (whole batches, the newest last). */
    private readonly keepEvents = 20_000,
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
    this.keptEvents += batch.events.length;
    while (this.batches.length > 1 && this.keptEvents > this.keepEvents) this.keptEvents -= this.batches.shift()!.events.length;
    this.deliver(batch);
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** The batches after `afterSeq` (seq starts at 1, so 0 means all), or null when some of them are no longer kept. */
  after(afterSeq: number): EventBatch[] | null {
    if (afterSeq >= this.seq) return [];
    const first = this.batches[0]?.seq ?? this.seq + 1;
    if (afterSeq + 1 < first) return null;
    return this.batches.slice(afterSeq + 1 - first);
  }
}
