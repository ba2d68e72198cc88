/**
 * The warm runners of one execution environment: at most `slots` idle ones (one per execution
 * slot: 1 in Lambda, JUBE_R_MAX_INFLIGHT_EXECUTE in the local stack). A call takes one that passes
 * the readiness check (alive, ready, younger than the maximum age, answering a ping in time) or
 * runs cold; one that fails the check is discarded, and the handler's refill after the run,
 * which comes after that run's hygiene, replaces it. A taken runner is never given back.
 */
import { groupMembers } from '../run/process-group.ts';
import type { Readiness, WarmRunner } from './warm-runner.ts';

/** How long a call waits for a runner that is still loading before it runs cold. */
export const STARTING_WAIT_MS = 5_000;

export interface WarmPoolSettings {
  readonly slots: number;
  readonly maxAgeMs: number;
  readonly readyMs: number;
}

export type WarmTake = { readonly runner: WarmRunner } | { readonly runner?: undefined; readonly cold: Exclude<Readiness, 'ready'> | 'none' };

export class WarmPool {
  private readonly idle: WarmRunner[] = [];
  private starting = 0;
  private closed = false;
  private refilling: Promise<void> = Promise.resolve();

  constructor(
    private readonly start: () => Promise<WarmRunner>,
    readonly settings: WarmPoolSettings,
  ) {}

  async take(): Promise<WarmTake> {
    const runner = this.idle.shift();
    if (!runner) return { cold: 'none' };
    let state = await runner.readiness(this.settings.maxAgeMs, this.settings.readyMs);
    if (state === 'not-ready') {
      // Still loading: it started before a cold one would, so waiting for it is never slower,
      // unless it wedged while loading (then the wait is bounded and the call runs cold).
      await Promise.race([runner.ready, new Promise((resolve) => setTimeout(resolve, STARTING_WAIT_MS).unref())]);
      state = await runner.readiness(this.settings.maxAgeMs, this.settings.readyMs);
    }
    if (state === 'ready') return { runner };
    await runner.discard();
    return { cold: state };
  }

  /** Starts runners until `slots` are idle or starting; resolves once those it started are ready (or ended). */
  refill(): Promise<void> {
    const done = this.startMissing();
    this.refilling = Promise.all([this.refilling, done]).then(() => undefined);
    return done;
  }

  /** Refills on the next turn (after the answer has gone out), counted by readyPids() at once. */
  refillSoon(): void {
    void this.refillAfter(new Promise<void>((resolve) => setImmediate(resolve)));
  }

  /** Refills once `first` settles (init's hygiene), counted by readyPids() at once. */
  refillAfter(first: Promise<unknown>): Promise<void> {
    const later = first.catch(() => undefined).then(() => this.refill());
    this.refilling = Promise.all([this.refilling, later]).then(() => undefined);
    return later;
  }

  /** The pids of the idle runners, once every refill so far has settled and each said ready (tests, benchmarks). */
  async readyPids(): Promise<number[]> {
    await this.refilling;
    const ready = await Promise.all(this.idle.map(async (r) => ((await r.ready) ? r.pid : undefined)));
    return ready.filter((pid): pid is number => pid !== undefined);
  }

  private async startMissing(): Promise<void> {
    const started: Promise<unknown>[] = [];
    while (!this.closed && this.idle.length + this.starting < this.settings.slots) {
      this.starting += 1;
      started.push(
        this.start().then(
          async (runner) => {
            this.starting -= 1;
            if (this.closed) return runner.discard();
            this.idle.push(runner);
            return runner.ready;
          },
          () => {
            // Nothing to start it with (the temp root is full): the calls run cold.
            this.starting -= 1;
          },
        ),
      );
    }
    await Promise.all(started);
  }

  /** Without waiting: the idle runners that said ready and live, and those still starting or loading. */
  counts(): { ready: number; starting: number } {
    const ready = this.idle.filter((r) => r.readyAt !== undefined && r.alive).length;
    return { ready, starting: this.starting + this.idle.filter((r) => r.readyAt === undefined && r.alive).length };
  }

  /**
   * The processes the hygiene must leave alone: each idle runner's pid and its process group,
   * nothing else (a runner forks nothing before its request, so the group is the runner).
   */
  async spared(): Promise<{ pids: Set<number>; paths: string[] }> {
    const pids = new Set<number>();
    for (const runner of this.idle) {
      if (runner.pid === undefined) continue;
      pids.add(runner.pid);
      for (const member of await groupMembers(runner.pid)) pids.add(member);
    }
    return { pids, paths: this.idle.map((r) => r.layout.root) };
  }

  /** Discards every idle runner; `close` also stops any refill (the environment is retired). */
  async clear(close = false): Promise<void> {
    if (close) this.closed = true;
    await Promise.all(this.idle.splice(0).map((r) => r.discard()));
  }

  get size(): number {
    return this.idle.length;
  }
}
