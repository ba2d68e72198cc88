/**
 * Kernel keys (add_key/keyctl) a run left behind. A key linked into the user's keyring (`@u`), the
 * user-session keyring (`@us`) or the persistent keyring belongs to the user namespace, not to a
 * process: it outlives every process kill, file wipe and Lambda reset, for the microVM's life, and
 * the next run of the same user reads it back. Where nothing filters `add_key` (Lambda: no seccomp
 * of the function's own; podman's default profile refuses it), a script with native code can do
 * so. Node cannot call keyctl and the image ships no keyutils, so this only finds them, in
 * /proc/keys (which lists the keys the reader may view, and the anchors' link counts): any key the
 * function's user owns is a problem, except the anchors themselves when they hold nothing a run put
 * there. The handler then refuses to run scripts in that environment (environment-not-clean), which
 * leaves the key unread; the environment serves no one until it is gone.
 */
import { readFile } from 'node:fs/promises';

export interface KernelKey {
  /** The serial, as /proc/keys prints it (hex). */
  readonly serial: string;
  readonly uid: number;
  readonly type: string;
  /** The description's name part (for a keyring, before ": <count>|empty"). */
  readonly name: string;
  /** For a keyring: how many links it holds (0 when `empty`); undefined for other types. */
  readonly links: number | undefined;
}

/** /proc/keys, one key per line: serial flags usage timeout perm uid gid type description. */
export function parseProcKeys(text: string): KernelKey[] {
  return text.split('\n').flatMap((line) => {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 9) return [];
    const [serial, , , , , uidText, , type] = fields as [string, string, string, string, string, string, string, string];
    const description = fields.slice(8).join(' ');
    const uid = Number(uidText);
    if (!/^[0-9a-f]+$/.test(serial) || !Number.isInteger(uid)) return [];
    const colon = description.lastIndexOf(': ');
    const name = colon < 0 ? description : description.slice(0, colon);
    const tail = colon < 0 ? '' : description.slice(colon + 2);
    const links = type !== 'keyring' ? undefined : tail === 'empty' ? 0 : Number.parseInt(tail, 10);
    return [{ serial, uid, type, name, links: Number.isNaN(links) ? undefined : links }];
  });
}

/**
 * Whether `key` of `uid` is a leftover. The kernel's own anchors are not, while they hold no more
 * than the kernel puts there: `_uid.U` and `_persistent.U` nothing, `_uid_ses.U` its one link to
 * `_uid.U`; an anonymous session keyring (`_ses`) holds nothing of its own either. Every other key
 * of the user (a `user`/`logon`/`big_key` key, a named keyring) is, since no part of the service
 * makes one.
 */
export function isLeftover(uid: number) {
  return (key: KernelKey): boolean => {
    if (key.uid !== uid) return false;
    if (key.type !== 'keyring') return true;
    const allowed: Record<string, number> = { [`_uid.${uid}`]: 0, [`_persistent.${uid}`]: 0, [`_uid_ses.${uid}`]: 1, _ses: 0 };
    const max = allowed[key.name];
    return max === undefined || key.links === undefined || key.links > max;
  };
}

/** The function user's leftover keys; none where the kernel has no keys or /proc/keys is masked. */
export async function leftoverKeys(options: { readonly uid?: number; readonly procRoot?: string } = {}): Promise<KernelKey[]> {
  const text = await readFile(`${options.procRoot ?? '/proc'}/keys`, 'utf8').catch(() => '');
  return parseProcKeys(text).filter(isLeftover(options.uid ?? process.getuid?.() ?? -1));
}
