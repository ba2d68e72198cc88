/**
 * What one run came to, as a value: run-in-workdir.ts produces it, response.ts
 * turns it into the ExecuteResponse. Nothing a script does makes the run throw; it ends in one of
 * these kinds.
 */
import type { OutputFile, Plot } from '../../layers/contract/execute.ts';
import type { CapturedOutput } from './output/caps.ts';
import type { RunnerEnvelope } from './output/envelope.ts';

/** What a run left behind to return: its plots and its out/ files (artifacts.ts), already capped. */
export interface Artifacts {
  readonly plots: readonly Plot[];
  readonly plotsOmitted: number;
  readonly files: readonly OutputFile[];
  readonly notes: readonly string[];
  /** A cap cut something (a plot or a file not returned). */
  readonly truncated: boolean;
}

export type RunOutcome =
  /** The dataframes could not be staged; R never started. `message` is safe to show the caller. */
  | { readonly kind: 'not-staged'; readonly message: string }
  /** The handler's backstop killed the process group before R wrote its envelope. */
  | {
      readonly kind: 'killed';
      readonly afterMs: number;
      /** The invocation's remaining time, not the script's limit plus grace, set the deadline. */
      readonly byRemainingTime: boolean;
      readonly output: CapturedOutput;
      readonly artifacts: Artifacts;
    }
  /** R ended without a trustworthy envelope (crash, signal, quit(), a forged or missing file). */
  | {
      readonly kind: 'no-envelope';
      readonly reason: string;
      readonly exitCode: number | null;
      readonly signal: string | null;
      readonly stderrTail: string;
      readonly output: CapturedOutput;
      readonly artifacts: Artifacts;
    }
  /** The runner's envelope, nonce checked: the script was rejected by R, ran, or failed. */
  | { readonly kind: 'envelope'; readonly envelope: RunnerEnvelope; readonly output: CapturedOutput; readonly artifacts: Artifacts };
