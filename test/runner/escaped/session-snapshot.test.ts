/**
 * A session's snapshot in the escaped posture (docs/sessions.md, docs/threat-model.md): the script
 * owns its R process (JUBE_R_TEST_ESCAPED_RUNNER, the capsule alone: what Lambda has), so it can
 * write any bytes as the snapshot its call leaves. What that reaches is the session's next call,
 * where the runner's reader builds data only, a function's source passes only its advisory name
 * check, and the capsule refuses the capability when the function runs. A snapshot over the cap is
 * not even read back by the handler.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readContainment } from '../../../functions/execute/run/containment.ts';
import { harness } from '../helpers.ts';
import { generous } from '../../load-tolerant.ts';

const marks = mkdtempSync(join(tmpdir(), 'jube-r-session-marks-'));
const mark = join(marks, 'ran');
afterAll(() => rmSync(marks, { recursive: true, force: true }));

const capsule = { ...readContainment().capsule!, kernel: 'off' as const };
const escaped = generous(harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule } }));
const plain = generous(harness({ namespaces: 'none', containment: { capsule } }));

/** An escaped script that, as R exits (after the runner wrote its own snapshot), writes `json` over it. */
const overwriting = (json: string) =>
  `invisible(reg.finalizer(globalenv(), function(e) writeLines(${JSON.stringify(json)}, file.path("WORKDIR", "session-out.json")), onexit = TRUE))\ncat("left\\n")`;
const inWorkdir = (script: string) => script.replace('"WORKDIR"', 'getwd()');

describe('a snapshot an escaped script wrote', () => {
  it('carries a function whose body reaches a capability past the name check; the capsule refuses it when it runs', async () => {
    const source = `function() eval(parse(text = paste0("sys", "tem('echo ran > ${mark}')")))`;
    const crafted = JSON.stringify({ version: 1, call: 1, objects: [{ name: 'f', kind: 'function', source }], packages: [], options: {}, dropped: [] });
    const first = await escaped.run(inWorkdir(overwriting(crafted)), { session: { id: 's1', call: 0 } });
    expect(first.consoleOutput).toBe('left\n');
    expect(first.sessionSnapshot).toBeDefined();

    const second = await plain.run('try(f())\ncat(exists("f"), "\\n")', { session: { id: 's1', call: 1, snapshot: first.sessionSnapshot } });
    expect(second.session).toMatchObject({ state: 'restored' });
    expect(second.consoleOutput).toContain('TRUE');
    // f() ran and the capsule refused its system(): an error, and no mark.
    expect(second.consoleOutput).toMatch(/Error/);
    expect(existsSync(mark)).toBe(false);
  });

  it('of kinds the writer never writes: refused whole, the next call starts empty', async () => {
    const crafted = JSON.stringify({ version: 1, call: 1, objects: [{ name: 'x', kind: 'externalptr', address: 4096 }], packages: [], options: {}, dropped: [] });
    const first = await escaped.run(inWorkdir(overwriting(crafted)), { session: { id: 's2', call: 0 } });
    const second = await plain.run('exists("x")', { session: { id: 's2', call: 1, snapshot: first.sessionSnapshot } });
    expect(second.notes?.join('\n')).toMatch(/a node of kind 'externalptr' is not data; this call starts with an empty workspace/);
    expect(second.value).toMatchObject({ kind: 'json', json: false });
  });

  it('over the session cap: the handler does not read it back, and the session keeps its last call', async () => {
    const big = `{"version":1,"pad":"${'x'.repeat(3 * 1024 * 1024)}"}`;
    const first = await escaped.run(inWorkdir(overwriting(big)), { session: { id: 's3', call: 4 } });
    expect(first.sessionSnapshot).toBeUndefined();
    expect(first.session).toMatchObject({ call: 4 });
    expect(first.notes?.join('\n')).toMatch(/not kept \(it is larger than \d+ bytes .*\); the session's next call gets the workspace of call 4/);
  });
});
