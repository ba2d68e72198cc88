/**
 * The notes cap (maxNotes) with real R, at its edge: a run whose own notes fill the cap exactly,
 * with and without the API's note of a lowered timeoutSeconds, which travels in the event.
 */
import { describe, expect, it } from 'vitest';
import { readServiceConfig, timeoutClampNote } from '../../layers/config/service-config.ts';
import { harness } from './helpers.ts';
import { generous } from '../load-tolerant.ts';

const MAX_NOTES = 3;
const h = generous(harness({ env: { JUBE_R_MAX_NOTES: String(MAX_NOTES) } }));

// Three caps fire, one note each: the console's, the warnings' and the messages'.
const THREE_NOTES = [
  'for (i in 1:3) warning(paste("w", i))',
  'for (i in 1:3) message(paste("m", i))',
  'cat(rep("a line of console output\\n", 40), sep = "")',
].join('\n');
const BUDGET = { consoleBytes: 64, warnings: 1, messages: 1 };
const CLAMP = timeoutClampNote(600, readServiceConfig({}))!;

describe('execute handler: the notes cap', () => {
  it('returns exactly maxNotes notes when the run makes that many', async () => {
    const response = await h.run(THREE_NOTES, { outputBudget: BUDGET });
    expect(response.status).toBe('ok');
    expect(response.notes).toHaveLength(MAX_NOTES);
    expect(response.notes!.join('\n')).toMatch(/consoleOutput was cut[\s\S]*warning\(s\) were left out[\s\S]*message\(s\) are only in consoleOutput/);
  });

  it('keeps the API\'s clamp note first and within the cap, counting what it pushed out', async () => {
    const response = await h.run(THREE_NOTES, { outputBudget: BUDGET, notes: [CLAMP] });
    expect(response.status).toBe('ok');
    expect(response.notes).toHaveLength(MAX_NOTES);
    expect(response.notes![0]).toBe(CLAMP);
    expect(response.notes![1]).toMatch(/^consoleOutput was cut/);
    // Four notes for three places: the last place says how many were left out (itself and one more).
    expect(response.notes![MAX_NOTES - 1]).toBe('2 more note(s) were left out (GET /health?detail=full limits.maxNotes)');
  });

  it('carries the clamp note on a run that made no notes of its own', async () => {
    const response = await h.run('1 + 1', { notes: [CLAMP] });
    expect(response.notes).toEqual([CLAMP]);
  });
});
