/**
 * Files a script wrote in its working directory instead of out/ (`ggsave("x.png")`,
 * `png("x.png")`, `write.csv(d, "d.csv")`): they are not returned, and plain R would have left
 * them where the user could see them. A note names them (at most a few) and says to write in out/.
 * The workdir is the script's: listed without following anything, bounded, and only names the
 * handler did not put there are counted.
 */
import { RUNNER_FILES } from '../../../layers/contract/runner.ts';
import { listDirectory } from './safe-read.ts';

/** The workdir's own top-level names (the runner's files and directories, and its atomic-write temp). */
const OWN_NAMES: ReadonlySet<string> = new Set([
  ...Object.values(RUNNER_FILES).map((path) => path.split('/')[0]!),
  `${RUNNER_FILES.envelope}.tmp`,
]);

/** Entries of the workdir's top level looked at, and names a note quotes. */
const MAX_ENTRIES = 100;
const MAX_NAMED = 5;

export async function strayFileNote(root: string, outDir: string): Promise<string[]> {
  const listing = await listDirectory(root, root, MAX_ENTRIES);
  if (!listing) return [];
  const stray = listing.entries.filter((e) => e.kind === 'file' && e.validName && !OWN_NAMES.has(e.name)).map((e) => e.name);
  if (stray.length === 0) return [];
  const out = outDir.split('/').at(-1)!;
  const named = stray.slice(0, MAX_NAMED).map((n) => JSON.stringify(n)).join(', ');
  const more = stray.length > MAX_NAMED || listing.more ? ' and more' : '';
  return [
    `${named}${more} ${stray.length === 1 ? 'was' : 'were'} written in the working directory, which is not returned: write files for the caller in ${out}/ (ggsave("${out}/plot.png"), png("${out}/plot.png"), write.csv(d, "${out}/d.csv"))`,
  ];
}
