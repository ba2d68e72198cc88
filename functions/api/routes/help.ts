/**
 * GET /help: an installed function's help page as plain text, looked up by any alias of its Rd page
 * in the precomputed pages (layers/packages/help.ts), never by running R. A topic nobody has is a
 * 404 HELP_TOPIC_NOT_FOUND naming the nearest installed topics.
 */
import { HelpQuerySchema, type HelpResponse, type HelpTopic } from '../../../layers/contract/api.ts';
import type { HelpIndex, HelpPage } from '../../../layers/packages/help.ts';
import { nearest } from '../../../layers/validator/suggest.ts';
import { HelpTopicNotFoundError } from '../http/errors.ts';
import { parseBody } from '../http/parse-body.ts';
import type { ApiDeps } from './deps.ts';

/** How many near topics a not-found answer names. */
export const HELP_SUGGESTIONS = 5;

/** `text` cut at `maxBytes` UTF-8 bytes, at a line end where there is one, with a line that says so. */
export function capText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return { text, truncated: false };
  const marker = `\n[... help page cut at ${maxBytes} of ${bytes} bytes; limits.maxHelpBytes ...]\n`;
  const room = Math.max(0, maxBytes - Buffer.byteLength(marker, 'utf8'));
  // Decoding a cut buffer drops a split character; the last newline keeps whole lines.
  const head = Buffer.from(text, 'utf8').subarray(0, room).toString('utf8').replace(/\uFFFD$/, '');
  const lineEnd = head.lastIndexOf('\n');
  return { text: (lineEnd > 0 ? head.slice(0, lineEnd) : head) + marker, truncated: true };
}

function suggestions(index: HelpIndex, topic: string, pkg: string | undefined): HelpTopic[] {
  const within = pkg === undefined ? undefined : index.byPackage.get(pkg);
  const candidates = within === undefined ? index.topics : [...within.keys()];
  return nearest(topic, candidates, HELP_SUGGESTIONS, Math.max(3, Math.ceil(topic.length / 3))).map((near) => ({
    topic: near,
    package: within === undefined ? index.packagesOf.get(near)![0]! : pkg!,
  }));
}

export function help(deps: Pick<ApiDeps, 'help' | 'config'>, query: unknown): HelpResponse {
  const { topic, package: pkg } = parseBody(HelpQuerySchema, query ?? {});
  const index = deps.help();
  const holders = index.packagesOf.get(topic) ?? [];
  const found = pkg === undefined ? holders[0] : holders.find((p) => p === pkg);
  if (found === undefined) {
    const where = pkg === undefined ? 'in any installed package' : index.byPackage.has(pkg) ? `in package ${pkg}` : `(${pkg} is not an installed package)`;
    throw new HelpTopicNotFoundError(`no help page for ${JSON.stringify(topic)} ${where}; see suggestions for the nearest installed topics`, suggestions(index, topic, pkg));
  }
  const page: HelpPage = index.byPackage.get(found)!.get(topic)!;
  const cut = capText(page.text, deps.config.maxHelpBytes);
  return {
    topic,
    package: found,
    page: page.name,
    title: page.title,
    aliases: [...page.aliases],
    text: cut.text,
    truncated: cut.truncated || page.truncated,
    bytes: Buffer.byteLength(page.text, 'utf8'),
    alsoIn: holders.filter((p) => p !== found).map((p) => ({ topic, package: p })),
  };
}
