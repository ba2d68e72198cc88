import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { groupMembers, killMarkedProcesses, killProcessGroup, markedProcesses, parseProcStat } from '../../../functions/execute/run/process-group.ts';

describe('process groups', () => {
  it.each([
    { text: '123 (R) S 1 123 123 0 -1', expected: { state: 'S', ppid: 1, pgid: 123 } },
    { text: '9 (odd) name (x)) R 5 77 77 0', expected: { state: 'R', ppid: 5, pgid: 77 } },
    { text: 'garbage', expected: undefined },
  ])('parses /proc/<pid>/stat: $text', ({ text, expected }) => {
    expect(parseProcStat(text)).toEqual(expected);
  });

  it('kills a whole detached group, forks included, and verifies it is empty', async () => {
    const child = spawn('sh', ['-c', 'sleep 60 & sleep 60 & wait'], { detached: true, stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 200));
    const pgid = child.pid!;
    expect((await groupMembers(pgid)).length).toBe(3);
    const report = await killProcessGroup(pgid);
    expect(report.killed).toHaveLength(3);
    expect(report.survivors).toEqual([]);
    expect(await groupMembers(pgid)).toEqual([]);
  });

  it('finds and kills a process that left the group (setsid) by the run marker in its environment', async () => {
    const marker = `test-${process.pid}-${Date.now()}`;
    // The leader starts a grandchild in a session of its own, then everything but it is group-killed.
    const child = spawn('sh', ['-c', 'setsid sleep 60 & sleep 60'], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', JUBE_R_RUN: marker },
    });
    await new Promise((r) => setTimeout(r, 300));
    const group = await killProcessGroup(child.pid!);
    expect(group.survivors).toEqual([]);
    const escaped = await markedProcesses(marker);
    expect(escaped).toHaveLength(1);

    const swept = await killMarkedProcesses(marker);
    expect(swept).toEqual({ killed: escaped, survivors: [] });
    expect(await markedProcesses(marker)).toEqual([]);
    // A near-miss marker (a prefix of another run's) is not ours.
    expect(await markedProcesses(marker.slice(0, -1))).toEqual([]);
  });
});
