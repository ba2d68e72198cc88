/**
 * One rule for everything the handler does after R ends (the envelope, plots, out/, the workdir's
 * removal, the wipe): it runs under one deadline, derived from the invocation's remaining time
 * when R ended, so the caller always gets an answer in time. Work that the deadline cut short
 * marks the environment for cleaning before its next run (`environmentNeedsCleaning`, read by the
 * start-of-run hygiene), and the response says what was not collected.
 */
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { ExecuteResponse } from '../../../layers/contract/execute.ts';

export class PostRunBudget {
  private readonly stopped: string[] = [];

  constructor(readonly deadline: number, private readonly now: () => number = Date.now) {}

  /** From when R ended: at most config.maxMs, and never past remaining time less config.reserveMs. */
  static after(remainingMs: () => number, config: ServiceConfig['postRun'], now: () => number = Date.now): PostRunBudget {
    const remaining = remainingMs();
    const ms = Math.max(0, Math.min(config.maxMs, Number.isFinite(remaining) ? remaining - config.reserveMs : config.maxMs));
    return new PostRunBudget(now() + ms, now);
  }

  left(): number {
    return Math.max(0, this.deadline - this.now());
  }

  expired(): boolean {
    return this.now() >= this.deadline;
  }

  /** Records that `what` was cut short by the deadline. */
  stop(what: string): void {
    if (!this.stopped.includes(what)) this.stopped.push(what);
  }

  get cutShort(): readonly string[] {
    return this.stopped;
  }

  /** The note a response carries when the budget cut something. */
  note(): string | undefined {
    return this.stopped.length === 0 ? undefined : `the handler's post-run time budget ran out (${this.stopped.join(', ')}); what was collected is returned`;
  }
}

/** Why this environment must be cleaned before its next run; undefined: it need not be. */
let cleaningNeeded: string | undefined;

export function markEnvironmentForCleaning(reason: string): void {
  cleaningNeeded = cleaningNeeded === undefined ? reason : `${cleaningNeeded}; ${reason}`;
}

export function environmentNeedsCleaning(): string | undefined {
  return cleaningNeeded;
}

/** For the hygiene that cleaned it. */
export function clearEnvironmentMark(): void {
  cleaningNeeded = undefined;
}

/** How long a workdir the post-run budget left behind is still removed in the background. */
export const BACKGROUND_REMOVAL_MS = 10 * 60_000;

/** `work`, or 'deadline' once the budget is spent (the work goes on; the environment is marked). */
export async function withinBudget<T>(work: Promise<T>, budget: PostRunBudget, what: string): Promise<T | 'deadline'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), budget.left());
  });
  try {
    const first = await Promise.race([work, late]);
    if (first === 'deadline') budget.stop(what);
    return first;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A response the budget cut short is `truncated` and carries its note: kept under the notes cap
 * where the response was built with it (response.ts pinnedNotes), added here otherwise.
 */
export function withBudgetNote(response: ExecuteResponse, budget: PostRunBudget | undefined): ExecuteResponse {
  const note = budget?.note();
  if (!note) return response;
  const notes = response.notes?.includes(note) ? response.notes : [...(response.notes ?? []), note];
  return { ...response, notes, truncated: true };
}
