/**
 * The script rules: one JSON file (script-rules.json) read by the validator, the R runner
 * and GET /health. This module is its only TypeScript reader; the schema makes a malformed
 * rules file fail at load, naming the offending key, instead of weakening the sandbox.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** What an argument of a named export may hold (packages.namedExports's `arguments`; the rules file's `why` says each). */
export const ARGUMENT_KINDS = ['refused', 'options', 'option', 'settings', 'setting', 'zone', 'seed', 'name', 'fileSuffix', 'value'] as const;
export type ArgumentKind = (typeof ARGUMENT_KINDS)[number];

export const ScriptRulesSchema = z.strictObject({
  $comment: z.string().optional(),
  version: z.number().int().positive(),
  script: z.strictObject({
    maxBytes: z.number().int().positive(),
    maxNestingDepth: z.number().int().positive(),
  }),
  blockedOperators: z.array(z.strictObject({ operator: z.string().min(1), why: z.string().min(1) })),
  packageLoaders: z.array(z.string().min(1)),
  packageLoaderArguments: z.strictObject({
    why: z.string().min(1),
    allowedNamedArguments: z.array(z.string().min(1)),
  }),
  packages: z.strictObject({
    /** Packages that only attach others (the tidyverse): a rejection names the members to load instead. */
    metaPackages: z.array(z.strictObject({ name: z.string().min(1), members: z.array(z.string().min(1)).min(1) })),
    baseAllowed: z.array(z.string().min(1)),
    blocked: z.array(z.strictObject({ name: z.string().min(1), why: z.string().min(1) })),
    /** Installed dependencies of the declared packages that a script may load too, each group with its reason. */
    allowedDependencies: z.strictObject({
      why: z.string().min(1),
      groups: z.array(z.strictObject({ why: z.string().min(1), names: z.array(z.string().min(1)).min(1) })).min(1),
      /** Installed dependencies a script may not load -> what to write instead (a rejection says it). */
      insteadOf: z.record(z.string().min(1), z.string().min(1)),
    }),
    /** `pkg::name` functions that load the packages they ask about (rlang::is_installed): held to the loaders' rules. */
    packageQueries: z.strictObject({
      why: z.string().min(1),
      functions: z.array(z.string().regex(/^[A-Za-z][A-Za-z0-9.]*::[A-Za-z.][A-Za-z0-9._]*$/)).min(1),
      allowedNamedArguments: z.array(z.string().min(1)),
    }),
    /**
     * Environment-valued exports a script may use as their package intends: the runner answers
     * `ggproto` objects as they are (once checked inert) and `r6Generator`s by a stand-in.
     */
    environmentExports: z.strictObject({
      why: z.string().min(1),
      packages: z.array(
        z.strictObject({
          name: z.string().min(1),
          kind: z.enum(['ggproto', 'r6Generator']),
          why: z.string().min(1),
          names: z.array(z.string().min(1)).min(1),
        }),
      ),
    }),
    /** Blocked packages whose listed functions may still be called as `pkg::name`, each group with its reason. */
    namedExports: z.strictObject({
      why: z.string().min(1),
      packages: z.array(
        z.strictObject({
          name: z.string().min(1),
          groups: z.array(z.strictObject({ why: z.string().min(1), names: z.array(z.string().min(1)).min(1) })).min(1),
          /** Exports a script might expect in the list, with why they are not and what to write instead. */
          refused: z.record(z.string().min(1), z.string().min(1)),
          /** Functions whose arguments are checked: each function's formal arguments in order (`...` among them) and what each may hold. */
          arguments: z.record(z.string().min(1), z.record(z.string().min(1), z.enum(ARGUMENT_KINDS))).optional(),
        }),
      ),
    }),
    /**
     * Unexported functions a script may reach as `pkg:::name` (their packages' help pages call them so),
     * each group with its reason: only of a package the script may load, only the listed names.
     */
    internalFunctions: z.strictObject({
      why: z.string().min(1),
      packages: z.array(
        z.strictObject({
          name: z.string().min(1),
          groups: z.array(z.strictObject({ why: z.string().min(1), names: z.array(z.string().min(1)).min(1) })).min(1),
        }),
      ),
    }),
  }),
  options: z.strictObject({
    functions: z.array(z.string().min(1)),
    why: z.string().min(1),
    deniedNames: z.array(z.string().min(1)),
    /** Options that may be set only to one of the listed numbers, each given literally. */
    restrictedValues: z.strictObject({ why: z.string().min(1), names: z.record(z.string().min(1), z.array(z.number())) }),
  }),
  higherOrderFunctions: z.strictObject({
    why: z.string().min(1),
    names: z.array(z.string().min(1)),
    unwrappedFunctions: z.strictObject({ why: z.string().min(1), names: z.array(z.string().regex(/^[A-Za-z][A-Za-z0-9.]*::[A-Za-z.][A-Za-z0-9._]*$/)) }),
    functionArgumentNames: z.array(z.string().min(1)),
  }),
  relaxations: z.strictObject({
    why: z.string().min(1),
    columnNames: z.strictObject({
      why: z.string().min(1),
      operators: z.array(z.string().min(1)),
      columnFunctions: z.array(z.string().min(1)),
      functionValuedArguments: z.array(z.string().min(1)),
      columnSets: z.strictObject({
        why: z.string().min(1),
        functions: z.array(z.string().min(1)),
        arguments: z.array(z.string().min(1)),
      }),
      scopeFunctions: z.array(z.string().min(1)),
    }),
    literalFunctionNames: z.strictObject({
      why: z.string().min(1),
      functions: z.record(
        z.string().min(1),
        z.strictObject({ argument: z.string().min(1), otherArguments: z.array(z.string().min(1)), refusesVariables: z.boolean() }),
      ),
      refusedNames: z.array(z.string().min(1)),
    }),
    localBlocks: z.strictObject({ why: z.string().min(1), functions: z.array(z.string().min(1)) }),
    attachedFrames: z.strictObject({ why: z.string().min(1), functions: z.array(z.string().min(1)), otherArguments: z.array(z.string().min(1)) }),
    /** example(topic, package = "pkg"): the package whose `pkg::` name is the same function, and the arguments besides the topic. */
    packageExamples: z.strictObject({
      why: z.string().min(1),
      functions: z.array(z.string().min(1)),
      package: z.string().min(1),
      otherArguments: z.array(z.string().min(1)),
    }),
    /** as.environment(x) of a list or data frame: never a literal number or string. */
    freshEnvironments: z.strictObject({ why: z.string().min(1), functions: z.array(z.string().min(1)) }),
    dataNames: z.strictObject({ why: z.string().min(1), dataArguments: z.array(z.string().min(1)) }),
    environmentSettings: z.strictObject({
      why: z.string().min(1),
      functions: z.array(z.string().min(1)),
      names: z.array(z.string().min(1)),
      valuePattern: z.string().min(1),
    }),
    environmentReads: z.strictObject({
      why: z.string().min(1),
      functions: z.array(z.string().min(1)),
      arguments: z.array(z.string().min(1)),
      names: z.array(z.string().min(1)),
    }),
    workingDirectory: z.strictObject({ why: z.string().min(1), functions: z.array(z.string().min(1)) }),
    consoleDiversion: z.strictObject({
      why: z.string().min(1),
      functions: z.array(z.string().min(1)),
      arguments: z.array(z.string().min(1)),
      types: z.array(z.string().min(1)),
    }),
    savedOptions: z.strictObject({ why: z.string().min(1), functions: z.array(z.string().min(1)) }),
    /** advice: what a refused superassignment's error suggests; both of its forms pass and run. */
    superassignment: z.strictObject({ why: z.string().min(1), operators: z.array(z.string().min(1)), advice: z.string().min(1) }),
  }),
  variables: z.strictObject({
    maxCount: z.number().int().positive(),
    maxArrayLength: z.number().int().positive(),
    maxStringBytes: z.number().int().positive(),
  }),
  dataframes: z.strictObject({ maxCount: z.number().int().positive() }),
  forbiddenSymbols: z.record(
    z.string(),
    z.strictObject({ why: z.string().min(1), symbols: z.array(z.string().min(1)).min(1) }),
  ),
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

/** Every forbidden symbol, flattened, with the category that justifies it. */
export function forbiddenSymbolIndex(rules: ScriptRules): ReadonlyMap<string, string> {
  const index = new Map<string, string>();
  for (const [category, entry] of Object.entries(rules.forbiddenSymbols)) {
    for (const symbol of entry.symbols) index.set(symbol, category);
  }
  return index;
}

/**
 * Packages a script may load: the base set, everything packages.R declares and the allowed
 * dependencies it installs with them, minus the blocked list.
 */
export function allowedPackages(rules: ScriptRules, declared: readonly string[]): ReadonlySet<string> {
  const blocked = new Set(rules.packages.blocked.map((p) => p.name));
  const dependencies = rules.packages.allowedDependencies.groups.flatMap((g) => g.names);
  return new Set([...rules.packages.baseAllowed, ...declared, ...dependencies].filter((p) => !blocked.has(p)));
}

/** A package -> the exports a script may name as `pkg::name` although the package itself is blocked. */
export function namedExports(rules: ScriptRules): ReadonlyMap<string, ReadonlySet<string>> {
  return new Map(rules.packages.namedExports.packages.map((p) => [p.name, new Set(p.groups.flatMap((g) => g.names))]));
}

/**
 * A package the script may load -> the internal functions it may reach as `pkg:::name`
 * (packages.internalFunctions); a package not in `allowed` has none.
 */
export function internalFunctions(rules: ScriptRules, allowed: ReadonlySet<string>): ReadonlyMap<string, ReadonlySet<string>> {
  return new Map(
    rules.packages.internalFunctions.packages.filter((p) => allowed.has(p.name)).map((p) => [p.name, new Set(p.groups.flatMap((g) => g.names))]),
  );
}

/** `pkg::name` -> the arguments that named export may be given, and what each may hold (in formal order). */
export function checkedExportArguments(rules: ScriptRules): ReadonlyMap<string, ReadonlyMap<string, ArgumentKind>> {
  return new Map(
    rules.packages.namedExports.packages.flatMap((p) =>
      Object.entries(p.arguments ?? {}).map(([name, args]) => [`${p.name}::${name}`, new Map(Object.entries(args))] as const),
    ),
  );
}
