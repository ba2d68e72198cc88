/**
 * The red-team tier against the warm start: an escaped script (the real functions in reach, no
 * mask, no hardening; JUBE_R_TEST_ESCAPED_RUNNER) knows the pid of another slot's idle warm
 * runner and goes for it: signals it, writes to its pipe through /proc, reads its environment and
 * memory. The capsule (in the Lambda posture: interposition alone, no kernel layers) must refuse
 * all of it; the warm runner must still be alive and serve the next call as if nothing happened.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readContainment } from '../../../functions/execute/run/containment.ts';
import { harness } from '../helpers.ts';

describe.each([{ kernel: 'off' as const }, { kernel: 'auto' as const }])('an escaped script next to an idle warm runner (kernel layers $kernel)', ({ kernel }) => {
  const capsule = readContainment().capsule!;
  const h = harness({
    namespaces: 'none',
    env: { JUBE_R_WARM: 'on', JUBE_R_MAX_INFLIGHT_EXECUTE: '2', JUBE_R_WARM_PACKAGES: 'none' },
    containment: { testEscapedRunner: true, capsule: { ...capsule, kernel } },
  });
  afterAll(() => h.close());

  it('cannot signal it, write to its pipe, or read its environment or memory', async () => {
    const idle = await h.warmRunners();
    expect(idle).toHaveLength(2);
    // The call takes the first idle runner; the second is the target.
    const target = idle[1]!;
    const before = readFileSync(`/proc/${target}/stat`, 'utf8');
    const attack = [
      `target <- ${target}L`,
      'cat("kill:", tryCatch(tools::pskill(target, 9L), error = function(e) "error"), "\\n")',
      'cat("stop:", tryCatch(tools::pskill(target, 19L), error = function(e) "error"), "\\n")',
      'cat("pipe:", tryCatch({ writeLines("run x /tmp", sprintf("/proc/%d/fd/0", target)); "written" }, error = function(e) "error", warning = function(w) "refused"), "\\n")',
      'cat("environ:", tryCatch(length(readBin(sprintf("/proc/%d/environ", target), "raw", 4096L)), error = function(e) "error", warning = function(w) "refused"), "\\n")',
      'cat("mem:", tryCatch(length(readBin(sprintf("/proc/%d/mem", target), "raw", 16L)), error = function(e) "error", warning = function(w) "refused"), "\\n")',
      'cat("attacks done\\n")',
    ].join('\n');

    const response = await h.run(attack, { timeoutSeconds: 20 });

    expect(h.reports.at(-1)?.start).toBe('warm');
    expect(response.consoleOutput).toContain('attacks done');
    expect(response.consoleOutput).not.toMatch(/pipe: written/);
    expect(response.consoleOutput).not.toMatch(/(environ|mem): \d+/);
    // Still the same process, still sleeping on its pipe (not stopped, not killed).
    const after = readFileSync(`/proc/${target}/stat`, 'utf8');
    expect(after.split(') ')[0]).toBe(before.split(') ')[0]);
    expect(after.split(') ')[1]![0]).toBe('S');
    // And it serves the next call.
    const next = await h.run('cat(6 * 7)');
    expect(h.reports.at(-1)?.start).toBe('warm');
    expect(h.reports.at(-1)?.pid).toBe(target);
    expect(next.consoleOutput).toBe('42');
  });
});
