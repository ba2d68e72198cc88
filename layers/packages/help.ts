/**
 * The installed help pages GET /help serves: rendered to plain text from the Rd of every declared
 * and base package by scripts/write-help.R when the manifest is written (`npm run setup`, the
 * image build), gzipped beside the manifest. Read once per process, on the first lookup, within
 * byte bounds, and indexed by alias, so a lookup is a map access and never starts R.
 */
import { readFileSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** Bounds on the file: the writer cuts each page at its `maxPageBytes`; these cap the whole. */
export const HELP_FILE_LIMITS = {
  /** The gzipped file (about 2.5 MB for packages.R's set). */
  maxFileBytes: 32 * 1024 * 1024,
  /** Decompressed (about 10 MB); gunzip stops here rather than inflating a bomb. */
  maxJsonBytes: 128 * 1024 * 1024,
  maxPages: 50_000,
  /** What a page may be whatever the file says its cut was. */
  maxPageBytes: 256 * 1024,
} as const;

const HelpPageSchema = z.strictObject({
  package: z.string().min(1),
  name: z.string().min(1),
  title: z.string(),
  aliases: z.array(z.string()),
  text: z.string(),
  truncated: z.boolean(),
});
export type HelpPage = z.infer<typeof HelpPageSchema>;

export const HelpFileSchema = z.strictObject({
  rVersion: z.string().min(1),
  maxPageBytes: z.number().int().min(1).max(HELP_FILE_LIMITS.maxPageBytes),
  pages: z.array(HelpPageSchema).max(HELP_FILE_LIMITS.maxPages),
});

export const helpFilePath = (): string =>
  process.env['JUBE_R_HELP_FILE'] ?? fileURLToPath(new URL('./help.json.gz', import.meta.url));

export class HelpMissingError extends Error {
  override readonly name = 'HelpMissingError';
}

/** Every page under each of its aliases, per package; packages in the file's (alphabetical) order. */
export interface HelpIndex {
  readonly rVersion: string;
  readonly packages: readonly string[];
  /** package -> alias -> page. */
  readonly byPackage: ReadonlyMap<string, ReadonlyMap<string, HelpPage>>;
  /** alias -> the packages with a page for it. */
  readonly packagesOf: ReadonlyMap<string, readonly string[]>;
  /** Every distinct alias, for suggestions. */
  readonly topics: readonly string[];
}

export function indexHelp(file: z.infer<typeof HelpFileSchema>): HelpIndex {
  const byPackage = new Map<string, Map<string, HelpPage>>();
  const packagesOf = new Map<string, string[]>();
  for (const page of file.pages) {
    if (Buffer.byteLength(page.text, 'utf8') > file.maxPageBytes) {
      throw new Error(`help page ${page.package}::${page.name} exceeds the file's own cut of ${file.maxPageBytes} bytes`);
    }
    let aliases = byPackage.get(page.package);
    if (aliases === undefined) byPackage.set(page.package, (aliases = new Map()));
    for (const alias of new Set([page.name, ...page.aliases])) {
      if (aliases.has(alias)) continue;
      aliases.set(alias, page);
      const holders = packagesOf.get(alias);
      if (holders === undefined) packagesOf.set(alias, [page.package]);
      else holders.push(page.package);
    }
  }
  return { rVersion: file.rVersion, packages: [...byPackage.keys()], byPackage, packagesOf, topics: [...packagesOf.keys()] };
}

/** Reads, bounds, validates and indexes the help file; a missing file names the command that writes it. */
export function loadHelp(path: string = helpFilePath(), limits: Pick<typeof HELP_FILE_LIMITS, 'maxFileBytes' | 'maxJsonBytes'> = HELP_FILE_LIMITS): HelpIndex {
  let compressed: Buffer;
  try {
    const size = statSync(path).size;
    if (size > limits.maxFileBytes) {
      throw new Error(`help file ${path} is ${size} bytes; at most ${limits.maxFileBytes} are read`);
    }
    compressed = readFileSync(path);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') throw cause;
    throw new HelpMissingError(`help pages not found at ${path}; run \`npm run setup\` (or scripts/write-help.R) to generate them`, { cause });
  }
  const json = gunzipSync(compressed, { maxOutputLength: limits.maxJsonBytes }).toString('utf8');
  return indexHelp(HelpFileSchema.parse(JSON.parse(json)));
}
