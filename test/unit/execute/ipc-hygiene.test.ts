/**
 * System V IPC hygiene with real kernel objects on the host: util-linux's ipcmk makes a queue, a
 * semaphore set and a segment, as a run would leave them; the cleaning removes
 * them and the kernel no longer lists them. Only the objects this test made are selected: the host
 * is shared, and the cleaning's default (everything the user owns) is for the image alone.
 */
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanSysvIpc, ipcrmArgs, listSysvObjects, ownedBy, parseSysvTable, type SysvObject } from '../../../functions/execute/environment/ipc-hygiene.ts';

const made: SysvObject[] = [];
afterEach(async () => {
  if (made.length > 0) await execa('ipcrm', ipcrmArgs(made.splice(0)), { reject: false });
});

/** `ipcmk` prints "Message queue id: 3" and the like. */
async function make(kind: SysvObject['kind']): Promise<number> {
  const flags = { msg: ['-Q'], sem: ['-S', '2'], shm: ['-M', '4096'] }[kind];
  const { stdout } = await execa('ipcmk', flags);
  const id = Number(/id: (\d+)/.exec(stdout)?.[1]);
  made.push({ kind, id, key: 0, uid: 0, cuid: 0 });
  return id;
}

const listed = async (kind: SysvObject['kind'], id: number) => (await listSysvObjects()).some((o) => o.kind === kind && o.id === id);

describe('parseSysvTable', () => {
  it('reads each kind by its own header, keeping owner and creator apart', () => {
    const msg = [
      '       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime',
      '  12345678         7   644          10          1   100     0   999   999  1000  1000          0          0 1700000000',
    ].join('\n');
    const shm = [
      '       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap',
      '         0        42   600                  4096    10     0      1  1000  1000  1000  1000          0          0 1700000000                     0                     0',
    ].join('\n');
    expect(parseSysvTable('msg', msg)).toEqual([{ kind: 'msg', key: 12345678, id: 7, uid: 999, cuid: 1000 }]);
    expect(parseSysvTable('shm', shm)).toEqual([{ kind: 'shm', key: 0, id: 42, uid: 1000, cuid: 1000 }]);
    expect(parseSysvTable('sem', '')).toEqual([]);
    // An owner that handed the object away (IPC_SET) is still its creator.
    expect(ownedBy(1000)({ kind: 'msg', key: 1, id: 7, uid: 0, cuid: 1000 })).toBe(true);
    expect(ownedBy(1000)({ kind: 'msg', key: 1, id: 7, uid: 0, cuid: 0 })).toBe(false);
    expect(ipcrmArgs([{ kind: 'msg', key: 1, id: 7, uid: 0, cuid: 0 }, { kind: 'sem', key: 1, id: 8, uid: 0, cuid: 0 }, { kind: 'shm', key: 1, id: 9, uid: 0, cuid: 0 }])).toEqual(
      ['-q', '7', '-s', '8', '-m', '9'],
    );
  });
});

describe('cleanSysvIpc', () => {
  it('removes a message queue, a semaphore set and a segment a run left', async () => {
    // Prepare
    const ids = { msg: await make('msg'), sem: await make('sem'), shm: await make('shm') };
    const mine = (o: SysvObject) => ids[o.kind] === o.id;
    // Control: they outlive the process that made them (ipcmk has exited), listed by the kernel.
    for (const [kind, id] of Object.entries(ids)) expect(await listed(kind as SysvObject['kind'], id)).toBe(true);
    // Act
    const report = await cleanSysvIpc({ select: mine });
    // Assess
    expect(report.remaining).toEqual([]);
    expect(report.removed.map((o) => `${o.kind} ${o.id}`).sort()).toEqual([`msg ${ids.msg}`, `sem ${ids.sem}`, `shm ${ids.shm}`]);
    for (const [kind, id] of Object.entries(ids)) expect(await listed(kind as SysvObject['kind'], id)).toBe(false);
  });

  it('reports what it could not remove (here: ipcrm cannot run), so the handler can fail the call', async () => {
    const id = await make('msg');
    const report = await cleanSysvIpc({ select: (o) => o.kind === 'msg' && o.id === id, ipcrm: '/nonexistent/ipcrm' });
    expect(report.remaining.map((o) => o.id)).toEqual([id]);
    expect(await listed('msg', id)).toBe(true);
  });

  it('spawns nothing and finds nothing when nothing is selected', async () => {
    expect(await cleanSysvIpc({ select: () => false, ipcrm: '/nonexistent/ipcrm' })).toEqual({ removed: [], remaining: [] });
  });
});
