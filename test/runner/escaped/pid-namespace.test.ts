/**
 * Under bubblewrap R runs in a PID namespace of its own, and the kernel ends every process of a
 * PID namespace before its first process finishes exiting: a survivor that left the process group
 * and shed the run's marker (setsid, `env -i`) is gone by the time the group holds nothing alive,
 * so the handler skips the marker scan there when the group kill found nothing alive
 * (functions/execute/run/run-script.ts), and still leaves nothing behind. Escaped (no R layer) and without the capsule, so the script can start it at all;
 * the control without bubblewrap shows such a survivor (its marker kept) outliving the group kill,
 * found by the marker scan.
 */
import { describe, expect, it } from 'vitest';
import { resolveNamespaces } from '../../../functions/execute/run/bwrap.ts';
import { processesMentioning } from '../../integration/local-stack.ts';
import { harness } from '../helpers.ts';

const bwrapWorks = (await resolveNamespaces('auto')).kind === 'bwrap';
/** An unusual duration, so the survivor is recognisable by its command line. */
const SURVIVOR_SECONDS = '4321.0625';

const survivors = async () => (await processesMentioning(SURVIVOR_SECONDS)).map((p) => p.pid);

const script = `system("setsid env -i sh -c 'sleep ${SURVIVOR_SECONDS}' &"); Sys.sleep(0.5); cat("left\\n")`;

describe.each(bwrapWorks ? [{ namespaces: 'bwrap' as const }] : [])('a survivor under bubblewrap (namespaces: $namespaces)', ({ namespaces }) => {
  it('is gone with its PID namespace when the handler answers, though neither the group kill nor the marker scan could find it', async () => {
    const h = harness({ namespaces, containment: { testEscapedRunner: true, capsule: undefined } });

    const response = await h.run(script, { timeoutSeconds: 20 });

    expect(response.consoleOutput).toContain('left');
    expect(await survivors()).toEqual([]);
    expect(h.reports.at(-1)!.group!.survivors).toEqual([]);
  });
});

describe('a survivor without bubblewrap (control)', () => {
  it('outlives the group kill and is found and killed by the marker scan', async () => {
    const h = harness({ namespaces: 'none', containment: { testEscapedRunner: true, capsule: undefined } });

    const response = await h.run(script.replace("env -i sh", "sh"), { timeoutSeconds: 20 });

    expect(response.consoleOutput).toContain('left');
    expect(h.reports.at(-1)!.group!.escaped?.length).toBeGreaterThan(0);
    expect(await survivors()).toEqual([]);
  });
});
