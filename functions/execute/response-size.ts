/**
 * The last guard on a response: whatever the caps add up to (a deployment may raise each of them),
 * the serialized response stays under maxBytes, below Lambda's 6 MB. Sizes are computed without
 * recursion (json-bounds.ts). Fields go in order of how much a caller loses: file contents, plot
 * pages, the value, the structured result, messages and details, and last the console's middle.
 */
import type { ExecuteResponse } from '../../layers/contract/execute.ts';
import { capText } from './caps.ts';
import { jsonBytes } from './json-bounds.ts';

type Shrink = (r: ExecuteResponse) => ExecuteResponse;

const STEPS: readonly [string, Shrink][] = [
  ['file contents', (r) => (r.files ? { ...r, files: r.files.map(({ data: _d, sha256: _s, ...f }) => (_d === undefined ? f : { ...f, truncated: true as const })) } : r)],
  ['plot pages', (r) => (r.plots && r.plots.length > 0 ? { ...r, plots: [], plotsOmitted: (r.plotsOmitted ?? 0) + r.plots.length } : r)],
  ['the value', ({ value: _v, ...r }) => r],
  ['the structured result', ({ result: _r, ...r }) => r],
  ['messages and warning details', ({ messages: _m, warningDetails: _w, ...r }) => r],
  ['the error details', ({ errorDetails: _e, ...r }) => r],
];

export function fitResponse(response: ExecuteResponse, maxBytes: number): ExecuteResponse {
  // Room for the note and the truncated flag this may add.
  const budget = maxBytes - 512;
  if (jsonBytes(response, maxBytes) <= budget) return response;
  let r = response;
  const dropped: string[] = [];
  for (const [what, shrink] of STEPS) {
    const next = shrink(r);
    if (next !== r && jsonBytes(next, maxBytes) < jsonBytes(r, maxBytes)) dropped.push(what);
    r = next;
    if (jsonBytes(r, maxBytes) <= budget) break;
  }
  const size = jsonBytes(r, Number.POSITIVE_INFINITY);
  if (size > budget) {
    // Everything else is already small: cut the console (and the error, warnings) to fit.
    const over = size - budget;
    const keep = Math.max(0, Buffer.byteLength(r.consoleOutput) - over - 64);
    r = { ...r, consoleOutput: capText(r.consoleOutput, keep).value };
    dropped.push('part of the console output');
    if (jsonBytes(r, maxBytes) > budget) {
      r = { ...r, warnings: [], error: r.error === null ? null : capText(r.error, 1024).value, notes: [] };
      dropped.push('the warnings');
    }
  }
  const note = `the response would have exceeded ${maxBytes} bytes (GET /health limits.maxResponseBytes): ${dropped.join(', ')} left out`;
  return { ...r, notes: [...(r.notes ?? []).slice(0, 5), note], truncated: true };
}
