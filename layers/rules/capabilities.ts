/**
 * The capability table (capabilities.json): what a script may not do, by category. Its only
 * TypeScript reader. The capsule enforces it below R from the C header this module generates
 * (`capabilitiesHeader`, written by scripts/write-capabilities.mts); the validator advises on
 * direct calls of its `functions` with the same words; GET /health publishes it. The schema makes a
 * malformed table fail at load, naming the key, instead of leaving a category out.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** Where a syscall row applies once the capsule is armed. */
const LAYERS = ['both', 'kernel', 'wrapper', 'none'] as const;
/** When a refused system call is allowed after all (r-image/capsule/rules.h, enum rule_check). */
const CHECKS = ['none', 'thread', 'self', 'readLimit'] as const;
/** What a dispatch row does to its R_FunTab entry (r-image/capsule/dispatch.c). */
export const DISPATCH_ACTIONS = [
  'refuse',
  'library-file',
  'package-object',
  'environment-names',
  'deadline',
  'foreign-call',
  'no-url',
  'keep-bytecode',
] as const;
const SOURCES = ['connection', 'path', 'second-path'] as const;

const Name = z.string().regex(/^[A-Za-z._][A-Za-z0-9._]*$/);
const CName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);

const FunctionRow = z.strictObject({
  name: Name,
  /** The package that exports it; absent: base R (attached in every session). */
  package: Name.optional(),
  /** `error` (default): a direct call always fails, so /validate refuses it; `warning`: it may fail (a lint). */
  severity: z.enum(['error', 'warning']).optional(),
  /** Only literal environment names outside `environmentNames` are refused: given as argument names or as values. */
  names: z.enum(['argument', 'value']).optional(),
});

const DispatchRow = z
  .strictObject({
    /** The R_FunTab entry: a primitive's or an .Internal's name, as R's names.c spells it. */
    entry: z.string().min(1),
    action: z.enum(DISPATCH_ACTIONS),
    /** R's declared arity, checked at arming where it is the same in every supported R. */
    arity: z.number().int().min(-1).optional(),
    /** library-file: which argument names what is read. */
    source: z.enum(SOURCES).optional(),
    /** foreign-call: the graphics engine replays recorded calls of this entry with no call of its own. */
    replayed: z.boolean().optional(),
  })
  .refine((row) => (row.action === 'library-file') === (row.source !== undefined), {
    message: 'a library-file row names its source, and only such a row does',
  });

const SyscallRow = z.strictObject({
  /** The system call (SYS_<call>), or null for names that have none of their own (loading, lookups). */
  call: CName.nullable(),
  layers: z.enum(LAYERS),
  check: z.enum(CHECKS).optional(),
  errno: z.enum(['EPERM', 'ENOSYS']).optional(),
  /** Not every architecture has this call (the row is then left out there). */
  optional: z.boolean().optional(),
  /** libc functions that reach it: dlsym never hands them out once armed. */
  symbols: z.array(CName).min(1).optional(),
});

const Category = z.strictObject({
  /** What a refused operation does, completing "<name> ...". */
  does: z.string().min(1),
  /** What the script can do instead: the second half of every refusal message of this category. */
  message: z.string().min(1),
  functions: z.array(FunctionRow).optional(),
  dispatch: z.array(DispatchRow).optional(),
  syscalls: z.array(SyscallRow).optional(),
});

export const CATEGORY_NAMES = [
  'program',
  'process',
  'network',
  'files',
  'nativeCode',
  'memory',
  'deserialization',
  'signals',
  'ipc',
  'environment',
  'timeLimits',
  'system',
] as const;
export type CategoryName = (typeof CATEGORY_NAMES)[number];

export const CapabilitiesSchema = z.strictObject({
  $comment: z.string(),
  version: z.literal(1),
  // Every category present: a missing one fails here, never silently drops its rows.
  categories: z.strictObject(Object.fromEntries(CATEGORY_NAMES.map((name) => [name, Category])) as Record<CategoryName, typeof Category>),
  routines: z.strictObject({
    $comment: z.string(),
    // base must be here: its evaluators are on the stack of almost every call.
    actForCaller: z
      .array(z.strictObject({ package: Name, why: z.string().min(1) }))
      .refine((rows) => rows.some((r) => r.package === 'base'), 'routines.actForCaller must name base'),
    vouchedBy: z.array(z.strictObject({ package: Name, by: z.array(Name).min(1), why: z.string().min(1) })),
    answered: z.array(
      z.strictObject({
        package: Name,
        routine: CName,
        category: z.enum(CATEGORY_NAMES),
        answer: z.enum(['refuse', 'opaque-address']),
        why: z.string().min(1),
      }),
    ),
  }),
  /** Names a script may set; a trailing `*` stands for any rest (LC_*). */
  environmentNames: z.array(z.string().regex(/^[A-Z_][A-Z0-9_]*\*?$/)).min(1),
  procSelf: z.strictObject({ $comment: z.string(), entries: z.array(z.string().regex(/^[a-z_]+$/)).min(1) }),
});
export type Capabilities = z.infer<typeof CapabilitiesSchema>;
export type CapabilityFunction = z.infer<typeof FunctionRow>;

export const CAPABILITIES_PATH = fileURLToPath(new URL('./capabilities.json', import.meta.url));

let cached: Capabilities | undefined;

/** The table, parsed and checked once; a malformed file throws naming the key. */
export function loadCapabilities(path: string = CAPABILITIES_PATH): Capabilities {
  if (path === CAPABILITIES_PATH && cached) return cached;
  const parsed = CapabilitiesSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  const entries = CATEGORY_NAMES.flatMap((c) => (parsed.categories[c].dispatch ?? []).map((d) => d.entry));
  const twice = entries.filter((e, i) => entries.indexOf(e) !== i);
  if (twice.length > 0) throw new Error(`capabilities.json: dispatch entries listed twice: ${twice.join(', ')}`);
  if (path === CAPABILITIES_PATH) cached = parsed;
  return parsed;
}

/** The refusal text every layer uses: "<name> <does>: <message>". */
export function capabilityMessage(category: CategoryName, name: string, capabilities = loadCapabilities()): string {
  const c = capabilities.categories[category];
  return `${name} ${c.does}: ${c.message}`;
}

/** The packages every R session attaches: a table row without `package` is one of theirs. */
export const R_ATTACHED_PACKAGES = ['base', 'utils', 'stats', 'methods', 'grDevices', 'graphics', 'datasets'] as const;

/**
 * A direct call the validator and the runner's re-validation refuse: `name(...)` (when `bare`) or
 * `pkg::name(...)` of one of `packages`, with its message. Only `error` rows (a call that always
 * fails); `warning` rows are lints.
 */
export interface CapabilityCallRow {
  readonly name: string;
  readonly bare: boolean;
  readonly packages: readonly string[];
  readonly category: CategoryName;
  readonly message: string;
}

export function capabilityCallRows(capabilities = loadCapabilities()): CapabilityCallRow[] {
  return CATEGORY_NAMES.flatMap((category) =>
    (capabilities.categories[category].functions ?? [])
      .filter((row) => (row.severity ?? 'error') === 'error' && row.names === undefined)
      .map((row) => ({
        name: row.name,
        bare: row.package === undefined,
        packages: row.package === undefined ? [...R_ATTACHED_PACKAGES] : [row.package],
        category,
        message: capabilityMessage(category, row.name, capabilities),
      })),
  );
}

export interface CapabilityCall {
  readonly category: CategoryName;
  readonly row: CapabilityFunction;
}

/** Direct-call advice: "name" and "pkg::name" -> its category and row. */
export function capabilityFunctionIndex(capabilities = loadCapabilities()): Map<string, CapabilityCall> {
  const index = new Map<string, CapabilityCall>();
  for (const category of CATEGORY_NAMES) {
    for (const row of capabilities.categories[category].functions ?? []) {
      index.set(row.package ? `${row.package}::${row.name}` : row.name, { category, row });
    }
  }
  return index;
}

/** GET /health's view of the table: per category what it refuses, where, and what to do instead. */
export const CapabilitySummarySchema = z.record(
  z.enum(CATEGORY_NAMES),
  z.strictObject({
    does: z.string(),
    message: z.string(),
    /** R functions a direct call of which /validate refuses (or warns about), as `name` or `pkg::name`. */
    functions: z.array(z.string()),
    /** Primitives and .Internals refused or fenced in R's dispatch table. */
    internals: z.array(z.string()),
  }),
);
export type CapabilitySummary = z.infer<typeof CapabilitySummarySchema>;

export function capabilitySummary(capabilities = loadCapabilities()): CapabilitySummary {
  return Object.fromEntries(
    CATEGORY_NAMES.map((name) => {
      const c = capabilities.categories[name];
      return [
        name,
        {
          does: c.does,
          message: c.message,
          functions: (c.functions ?? []).map((f) => (f.package ? `${f.package}::${f.name}` : f.name)),
          internals: (c.dispatch ?? []).map((d) => d.entry),
        },
      ];
    }),
  ) as CapabilitySummary;
}

// ---- the capsule's header ----------------------------------------------------------------------

const cString = (s: string): string => JSON.stringify(s);
const cIdent = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/**
 * r-image/capsule/capabilities.gen.h: X-macro lists the capsule's C code expands. A row whose
 * system call is missing on a machine is left out only when the table marks it optional; otherwise
 * the build fails (#error), so a table the compiler cannot honour never builds.
 */
export function capabilitiesHeader(capabilities = loadCapabilities()): string {
  const out: string[] = [
    '/* Generated from layers/rules/capabilities.json by scripts/write-capabilities.mts: do not edit. */',
    '/* test/unit/rules/capabilities.test.ts fails while this file differs from what the script writes. */',
    '#ifndef JUBE_CAPABILITIES_GEN_H',
    '#define JUBE_CAPABILITIES_GEN_H',
    '',
    '/* X(id, name, does, message) */',
    '#define CAPABILITY_CATEGORIES(X) \\',
  ];
  for (const name of CATEGORY_NAMES) {
    const c = capabilities.categories[name];
    out.push(`  X(CAT_${cIdent(name)}, ${cString(name)}, ${cString(c.does)}, ${cString(c.message)}) \\`);
  }
  out.push('', '/* X(entry, category, action, arity or NO_ARITY, source, replayed) */', '#define DISPATCH_ROWS(X) \\');
  for (const name of CATEGORY_NAMES) {
    for (const d of capabilities.categories[name].dispatch ?? []) {
      const action = `ACTION_${d.action.replace(/-/g, '_').toUpperCase()}`;
      const source = d.source ? `SOURCE_${d.source.replace(/-/g, '_').toUpperCase()}` : 'SOURCE_NONE';
      out.push(
        `  X(${cString(d.entry)}, CAT_${cIdent(name)}, ${action}, ${d.arity ?? 'NO_ARITY'}, ${source}, ${d.replayed ? 1 : 0}) \\`,
      );
    }
  }
  const rows: string[] = [];
  for (const name of CATEGORY_NAMES) {
    for (const s of capabilities.categories[name].syscalls ?? []) {
      const layers = { both: 'BOTH', kernel: 'IN_KERNEL', wrapper: 'IN_WRAPPER', none: '0' }[s.layers];
      const check = `CHECK_${cIdent(s.check ?? 'none')}`;
      const symbols = s.symbols ? `NAMES(${s.symbols.map(cString).join(', ')})` : 'NULL';
      const row = s.call
        ? `{SYS_${s.call}, ${cString(s.call)}, CAT_${cIdent(name)}, ${layers}, ${check}, ${s.errno ?? 'EPERM'}, ${symbols}},`
        : `{NO_SYSCALL, "lookups", CAT_${cIdent(name)}, ${layers}, ${check}, ${s.errno ?? 'EPERM'}, ${symbols}},`;
      if (!s.call) rows.push(`  ${row}`);
      else if (s.optional) rows.push(`#ifdef SYS_${s.call}`, `  ${row}`, '#endif');
      else rows.push(`#ifndef SYS_${s.call}`, `#error "capabilities.json: SYS_${s.call} is missing here; mark the row optional if that is right"`, '#endif', `  ${row}`);
    }
  }
  out.push('/* X(package, routine, category, answer) */', '#define ANSWERED_ROUTINES(X) \\');
  for (const r of capabilities.routines.answered) {
    const answer = `ANSWER_${r.answer.replace(/-/g, '_').toUpperCase()}`;
    out.push(`  X(${cString(r.package)}, ${cString(r.routine)}, CAT_${cIdent(r.category)}, ${answer}) \\`);
  }
  out.push('', '#define ACT_FOR_CALLER \\');
  for (const a of capabilities.routines.actForCaller) out.push(`  ${cString(a.package)}, \\`);
  out.push('', '/* X(package, by) */', '#define VOUCHED_BY(X) \\');
  for (const v of capabilities.routines.vouchedBy) for (const by of v.by) out.push(`  X(${cString(v.package)}, ${cString(by)}) \\`);
  out.push('', '#define ENVIRONMENT_NAMES \\');
  for (const n of capabilities.environmentNames) out.push(`  ${cString(n)}, \\`);
  out.push('', '#define PROC_SELF_ENTRIES \\');
  for (const n of capabilities.procSelf.entries) out.push(`  ${cString(n)}, \\`);
  out.push('', '#endif /* JUBE_CAPABILITIES_GEN_H */', '');
  // The system-call rows hold preprocessor conditionals, so they are not a macro: rules.c includes
  // this file a second time inside its table's initializer with JUBE_SYSCALL_ROWS defined.
  out.push('#ifdef JUBE_SYSCALL_ROWS', ...rows, '#endif', '');
  return out.join('\n');
}
