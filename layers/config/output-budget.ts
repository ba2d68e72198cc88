/**
 * A request's output budget resolved against the deployment: the caps one run's response is held
 * to (the configured caps with the budget's four in place of theirs), and a note for every field
 * the request set above its maximum. Pure. The same words name each budget field in the notes a
 * fired cap adds (functions/execute/output/budget-notes.ts), so a caller learns what to raise.
 */
import type { OutputBudget } from '../contract/execute.ts';
import type { ServiceConfig } from './service-config.ts';

type Caps = ServiceConfig['caps'];

/** Each budget field: the cap it replaces and the GET /health limit that publishes its maximum. */
export const BUDGET_FIELDS = {
  consoleBytes: { cap: 'consoleOutputBytes', maxLimit: 'maxConsoleOutputBytes' },
  valueBytes: { cap: 'valueBytes', maxLimit: 'maxValueBytes' },
  warnings: { cap: 'warnings', maxLimit: 'maxWarnings' },
  messages: { cap: 'messages', maxLimit: 'maxMessages' },
} as const satisfies Record<keyof OutputBudget, { cap: keyof Caps; maxLimit: string }>;

export type BudgetField = keyof typeof BUDGET_FIELDS;

export interface ResolvedBudget {
  /** The caps this run is held to. */
  readonly caps: Caps;
  /** The budget in force and the most a request may ask for, per field. */
  readonly fields: Readonly<Record<BudgetField, { readonly value: number; readonly max: number }>>;
  /** A request's field above its maximum, lowered to it. */
  readonly notes: readonly string[];
}

export function resolveOutputBudget(requested: OutputBudget | undefined, config: Pick<ServiceConfig, 'caps' | 'outputBudget'>): ResolvedBudget {
  const caps: { -readonly [K in keyof Caps]: Caps[K] } = { ...config.caps };
  const notes: string[] = [];
  const fields = {} as Record<BudgetField, { value: number; max: number }>;
  for (const field of Object.keys(BUDGET_FIELDS) as BudgetField[]) {
    const { cap, maxLimit } = BUDGET_FIELDS[field];
    const max = config.caps[cap];
    const wanted = requested?.[field] ?? config.outputBudget[field];
    const value = Math.min(wanted, max);
    if (wanted > max) {
      notes.push(`outputBudget.${field} ${wanted} is above this deployment's maximum; ${max} was used (GET /health?detail=full limits.${maxLimit})`);
    }
    caps[cap] = value;
    fields[field] = { value, max };
  }
  return { caps, fields, notes };
}

/** What a note says when a budget field's cap fired: the field, its value, and how far it can go. */
export function raiseBudgetHint(field: BudgetField, budget: Pick<ResolvedBudget, 'fields'>): string {
  const { value, max } = budget.fields[field];
  return value < max
    ? `outputBudget.${field} is ${value}; raise it (up to ${max}) to get more`
    : `outputBudget.${field} is at this deployment's maximum, ${max} (GET /health?detail=full limits.${BUDGET_FIELDS[field].maxLimit})`;
}
