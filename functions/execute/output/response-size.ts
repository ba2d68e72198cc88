/**
 * The last guard on a response: whatever the caps add up to (a deployment may raise each of them),
 * the serialized response stays under maxBytes, below Lambda's 6 MB. Sizes are computed without
 * recursion (json-bounds.ts). Fields go in order of how much a caller loses: file contents, plot
 * pages, the value, the structured result, messages and details, and last the console's middle.
 */
import type { ExecuteResponse } from '../../../layers/contract/execute.ts';
import { capText } from './caps.ts';
import { jsonBytes } from './json-bounds.ts';

type Shrink = (r: ExecuteResponse) => ExecuteResponse;

const withoutFileData: Shrink = (r) =>
  r.files ? { ...r, files: r.files.map(({ data, sha256: _s, ...f }) => (data === undefined ? f : { ...f, truncated: true as const })) } : r;

/** What each step drops, and the part of the response it measures to know what that saves. */
const STEPS: readonly [string, Shrink, (r: ExecuteResponse) => unknown][] = [
  ['file contents', withoutFileData, (r) => r.files],
  ['plot pages', (r) => (r.plots && r.plots.length > 0 ? { ...r, plots: [], plotsOmitted: (r.plotsOmitted ?? 0) + r.plots.length } : r), (r) => r.plots],
  ['the value', ({ value: _v, ...r }) => r, (r) => r.value],
  ['the structured result', ({ result: _r, ...r }) => r, (r) => r.result],
  ['messages and warning details', ({ messages: _m, warningDetails: _w, ...r }) => r, (r) => [r.messages, r.warningDetails]],
  ['the error details', ({ errorDetails: _e, ...r }) => r, (r) => r.errorDetails],
];

export function fitResponse(response: ExecuteResponse, maxBytes: number): ExecuteResponse {
  // Room for the note and the truncated flag this may add.
  const budget = maxBytes - 512;
  let size = jsonBytes(response);
  if (size <= budget) return response;
  let r = response;
  const dropped: string[] = [];
  for (const [what, shrink, part] of STEPS) {
    if (size <= budget) break;
    const before = part(r);
    if (before === undefined) continue;
    const saved = jsonBytes(before) - jsonBytes(part(shrink(r)) ?? null);
    r = shrink(r);
    if (saved > 0) {
      dropped.push(what);
      size -= saved;
    }
  }
  // The step sizes are close, not exact: measure once more before the last resort.
  size = jsonBytes(r);
  if (size > budget) {
    // Everything else is already small: cut the console (and the error, warnings) to fit.
    const keep = Math.max(0, Buffer.byteLength(r.consoleOutput) - (size - budget) - 64);
    r = { ...r, consoleOutput: capText(r.consoleOutput, keep).value };
    dropped.push('part of the console output');
    if (jsonBytes(r) > budget) {
      r = { ...r, warnings: [], error: r.error === null ? null : capText(r.error, 1024).value, notes: [] };
      dropped.push('the warnings');
    }
  }
  const note = `the response would have exceeded ${maxBytes} bytes (GET /health?detail=full limits.maxResponseBytes): ${dropped.join(', ')} left out`;
  return { ...r, notes: [...(r.notes ?? []).slice(0, 5), note], truncated: true };
}
