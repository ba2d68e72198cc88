/**
 * The kernel's key store (add_key/keyctl): a key linked into the user keyring (`@u`), the
 * user-session keyring (`@us`) or the persistent keyring belongs to the user namespace, not to a
 * process, so it outlives every process kill, file wipe and Lambda reset, for the microVM's life,
 * and the next run of the same user reads it back. Where nothing filters `add_key` (Lambda: no
 * seccomp of the function's own), a script with native code can leave one, and can hide it from
 * /proc/keys by taking the view permission away, so listing is no check. Node cannot call keyctl:
 * the capsule's build ships a small program (r-image/capsule/keys-clear.c) that empties the three
 * anchors and reads them back. A run can also take away the permission to clear an anchor (the
 * kernel then refuses its owner too); the program then fails, the handler refuses every later run
 * in that environment, and the key stays unread.
 */
import { execa } from 'execa';
import { handlerFile } from '../bundle-paths.ts';

/** The program beside the bundled handler (the image), else the host build (npm run setup). */
export const keysHelper = (): string => handlerFile('native/jube-keys-clear', 'build/capsule/jube-keys-clear');

export type KeysOutcome =
  | { readonly state: 'cleared' }
  /** The kernel or a seccomp filter refuses keyctl: no run can have left a key either. */
  | { readonly state: 'unavailable'; readonly reason: string }
  /** An anchor that could not be emptied, or the program not run at all. */
  | { readonly state: 'failed'; readonly step: string };

/** The program's one line and exit status, pure. */
export function keysOutcome(stdout: string, exitCode: number | undefined): KeysOutcome {
  const [word, ...rest] = stdout.trim().split(/\s+/);
  if (exitCode === 0 && word === 'cleared') return { state: 'cleared' };
  if (exitCode === 0 && word === 'unavailable') return { state: 'unavailable', reason: rest.join(' ') };
  if (word === 'failed' && rest[0]) return { state: 'failed', step: rest[0] };
  return { state: 'failed', step: 'helper' };
}

/** Runs the program (`argv`: the program and its arguments; the handler's is `[keysHelper()]`). */
export async function clearKernelKeys(argv: readonly string[]): Promise<KeysOutcome> {
  const [file, ...args] = argv;
  if (file === undefined) return { state: 'failed', step: 'helper' };
  const run = await execa(file, args, { reject: false, stdin: 'ignore', extendEnv: false, env: {}, timeout: 5_000 });
  return keysOutcome(String(run.stdout), run.exitCode);
}
