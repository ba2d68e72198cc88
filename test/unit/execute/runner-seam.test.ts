/**
 * layers/contract/runner.ts: the seam's one source. seam.json (what the R runner reads) is what
 * it generates; the input schema agrees case by case with the R side's check (the same table,
 * test/runner/r/seam-input-cases.json, drives test/runner/r/test-seam.R); the capsule report parses.
 * That no other source spells a workdir file name is test/unit/layout.test.ts's.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import { parseCapsuleReport, RunnerInputSchema, runnerSeamJson } from '../../../layers/contract/runner.ts';
import { runnerCaps } from '../../../functions/execute/run/workdir.ts';

const repo = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));

interface SeamCase {
  readonly name: string;
  readonly change?: Record<string, unknown>;
  readonly remove?: string;
  readonly ok: boolean;
}
const table = JSON.parse(readFileSync(repo('test/runner/r/seam-input-cases.json'), 'utf8')) as { valid: Record<string, unknown>; cases: SeamCase[] };

describe('the runner seam', () => {
  it('r-image/runner/seam.json is what layers/contract/runner.ts generates (node --import tsx scripts/write-runner-seam.mts)', () => {
    expect(readFileSync(repo('r-image/runner/seam.json'), 'utf8')).toBe(runnerSeamJson());
  });

  it.each(table.cases)('input.json: $name (ok: $ok), as the R side decides it', ({ change, remove, ok }) => {
    const input: Record<string, unknown> = { ...table.valid, ...change };
    if (remove) delete input[remove];
    expect(RunnerInputSchema.safeParse(input).success).toBe(ok);
  });

  it('the caps the runner gets are the configuration\'s, picked', () => {
    const caps = readServiceConfig({}).caps;
    expect(runnerCaps(caps)).toEqual({
      errorBytes: caps.errorBytes, warnings: caps.warnings, warningBytes: caps.warningBytes, messages: caps.messages,
      messageBytes: caps.messageBytes, valueBytes: caps.valueBytes, callBytes: caps.callBytes, tracebackFrames: caps.tracebackFrames,
    });
  });

  it.each([
    ['preload=armed landlock=abi6 seccomp=active', { armed: true, landlockAbi: 6, seccomp: true }],
    ['preload=armed landlock=off seccomp=off', { armed: true, landlockAbi: undefined, seccomp: false }],
    ['preload=off', { armed: false, landlockAbi: undefined, seccomp: false }],
    ['not armed', { armed: false }],
    // Armed only as the first field: a report that merely mentions it later is not.
    ['failed: x preload=armed', { armed: false }],
  ])('the capsule report %j parses', (report, expected) => {
    expect(parseCapsuleReport(report)).toMatchObject({ ...expected, text: report });
  });

  it('no report is no parse', () => expect(parseCapsuleReport(undefined)).toBeUndefined());
});
