/**
 * The script rules: one JSON file (script-rules.json) read by the validator, the execute handler
 * and GET /health: the script's shape limits, the package loaders, the packages a script is told
 * not to load and the limits on the call's inputs. What a script may *do* is the capability table
 * (capabilities.ts), enforced below R. This module is the rules file's only TypeScript reader; the
 * schema makes a malformed file fail at load, naming the offending key.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const Name = z.string().min(1);

export const ScriptRulesSchema = z.strictObject({
  $comment: z.string().optional(),
  version: z.literal(2),
  script: z.strictObject({
    maxBytes: z.number().int().positive(),
    maxNestingDepth: z.number().int().positive(),
  }),
  /** The functions that load or attach a package by name (library(), require(), ...). */
  packageLoaders: z.array(Name).min(1),
  packages: z.strictObject({
    /** Packages that ship with R: loadable wherever no manifest says what is installed. */
    baseAllowed: z.array(Name).min(1),
    /** Packages a script is told not to load: what they would do, and what to do instead. */
    blocked: z.array(z.strictObject({ name: Name, why: Name, instead: Name })),
    /** Packages that only attach others (the tidyverse): the advice names the members to load. */
    metaPackages: z.array(z.strictObject({ name: Name, members: z.array(Name).min(1) })),
    /** Packages the image does not hold, with what to write instead; `example` is a script that passes and runs (tested). */
    alternatives: z.array(z.strictObject({ name: Name, instead: Name, example: Name })),
  }),
  variables: z.strictObject({
    maxCount: z.number().int().positive(),
    maxArrayLength: z.number().int().positive(),
    maxStringBytes: z.number().int().positive(),
  }),
  dataframes: z.strictObject({ maxCount: z.number().int().positive() }),
});

export type ScriptRules = z.infer<typeof ScriptRulesSchema>;

/** Where the rules file lives; overridable so a Lambda bundle can ship it beside its code. */
export const rulesFilePath = (): string =>
  process.env['JUBE_R_RULES_FILE'] ?? fileURLToPath(new URL('./script-rules.json', import.meta.url));

let cached: ScriptRules | undefined;

/** Reads and validates the rules once per process. */
export function loadRules(path: string = rulesFilePath()): ScriptRules {
  if (cached && path === rulesFilePath()) return cached;
  const parsed = ScriptRulesSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  if (path === rulesFilePath()) cached = parsed;
  return parsed;
}

/** Packages a script may load: R's own and every installed one, minus the blocked list. */
export function allowedPackages(rules: ScriptRules, installed: Iterable<string>): ReadonlySet<string> {
  const blocked = new Set(rules.packages.blocked.map((p) => p.name));
  return new Set([...rules.packages.baseAllowed, ...installed].filter((p) => !blocked.has(p)));
}
