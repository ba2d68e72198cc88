/**
 * The seam between the execute handler (TypeScript) and the runner (r-image/runner/*.R): the
 * files of a workdir, what the handler writes to input.json, what the runner writes back as
 * envelope.json, the markers a script prints its structured result between, and the capsule's
 * report. Both sides read it from here: the runner through r-image/runner/seam.json, which
 * `runnerSeam()` generates and test/unit/contract/runner.test.ts holds equal to this file.
 *
 * The envelope is untrusted input: a script that escaped the R layer owns the process that
 * writes it, so every string and array in its schema is bounded, and the reader
 * (functions/execute/output/envelope.ts) bounds its bytes and nesting before it parses.
 */
import { z } from 'zod';
import { capabilityCallRows } from '../rules/capabilities.ts';
import { RUNNER_CAP_KEYS, type RunnerCaps } from './output-caps.ts';
import { CONTEXT_ENCODINGS, R_JSON } from './context-encoding.ts';
import { ErrorTypeSchema, VALUE_LIMITS, valueTypesSchema } from './execute.ts';
import { ValidationErrorCodeSchema } from './validation.ts';
import { EnvelopeSessionSchema, RunnerSessionSchema, SNAPSHOT_SEAM } from './session.ts';

/** Names inside the workdir, relative to its root. */
export const RUNNER_FILES = {
  script: 'script.R',
  input: 'input.json',
  envelope: 'envelope.json',
  dataDir: 'data',
  outDir: 'out',
  plotDir: '.jube/plots',
  home: 'home',
  tmp: 'tmp',
  noLibrary: 'no-user-library',
  emptyFile: 'empty',
  /** A session's snapshot the handler staged for the runner to restore (docs/sessions.md). */
  sessionIn: 'session-in.json',
  /** The snapshot the runner wrote after a session's call, for the handler to store. */
  sessionOut: 'session-out.json',
} as const;

/** A script's structured result sits between these in its stdout. */
export const RESULT_MARKERS = { start: '<<<JUBE_RESULT_START>>>', end: '<<<JUBE_RESULT_END>>>' } as const;

export { RUNNER_CAP_KEYS, type RunnerCaps };

const positiveInt = z.number().int().min(0).max(2 ** 31 - 1);

/**
 * Bounds of the envelope reader and schema. They sit above every cap a deployment may configure
 * (layers/config/service-config.ts), so a genuine envelope always fits; the published caps are
 * applied afterwards, field by field (functions/execute/output/response.ts).
 */
export const ENVELOPE_LIMITS = {
  /** The file is read at most this far. */
  maxBytes: 16 * 1024 * 1024,
  /** Nesting of arrays and objects, counted before JSON.parse. */
  maxDepth: 64,
  /** Any one string, in UTF-16 code units (zod's measure). */
  maxStringLength: 4 * 1024 * 1024,
  /** warnings, messages, warningDetails. */
  maxListLength: 10_000,
  maxNotes: 100,
  maxClasses: 64,
  maxTracebackFrames: 100,
  maxValidationErrors: 1_000,
  maxShortString: 4096,
} as const;

const L = ENVELOPE_LIMITS;
const text = z.string().max(L.maxStringLength);
const short = z.string().max(L.maxShortString);
const line = z.number().int().min(1).max(2 ** 31 - 1);
const position = { line: line.optional(), column: line.optional() };
const classes = z.array(short).max(L.maxClasses);

export const EnvelopeErrorDetailsSchema = z.strictObject({
  class: classes,
  message: text,
  call: text.nullable(),
  ...position,
  expressionLine: line.optional(),
  expressionColumn: line.optional(),
  traceback: z.array(z.strictObject({ call: text, ...position })).max(L.maxTracebackFrames),
  hints: z.array(text).max(L.maxNotes).optional(),
});

/** What `warnings[i]` came with; its text is only in `warnings`. `count`: identical ones folded into it. */
export const EnvelopeWarningDetailSchema = z.strictObject({ call: text.nullable(), ...position, count: positiveInt.min(2).optional() });

/** Which caps shortened a printed value (r-image/runner/value.R): its JSON over valueBytes, max.print, valueBytes. */
export const VALUE_CUTS = ['json', 'maxPrint', 'valueBytes'] as const;
export type ValueCut = (typeof VALUE_CUTS)[number];

/** `json` is any JSON; its nesting is bounded by the reader, its size (with `types`) by the value cap. */
export const EnvelopeValueSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('json'), class: classes, json: z.unknown(), types: valueTypesSchema(text, short, L.maxListLength).optional() }),
  z.strictObject({
    kind: z.literal('printed'), class: classes, printed: text, truncated: z.boolean().optional(),
    cuts: z.array(z.enum(VALUE_CUTS)).max(VALUE_CUTS.length).optional(),
  }),
]);

export const EnvelopeValidationErrorSchema = z.strictObject({
  code: ValidationErrorCodeSchema,
  message: text,
  line,
  column: line,
  symbol: short.optional(),
});

export const RunnerEnvelopeSchema = z.strictObject({
  nonce: short,
  /** Written by the runner but never reported: the service's R version comes from start-up. */
  rVersion: short,
  status: z.enum(['ok', 'error', 'rejected']),
  error: text.nullable(),
  warnings: z.array(text).max(L.maxListLength),
  warningsDropped: positiveInt.optional(),
  timedOut: z.boolean(),
  /** On an error: whether it came from the script's expressions or from the runner's set-up. */
  errorType: ErrorTypeSchema.optional(),
  errorDetails: EnvelopeErrorDetailsSchema.optional(),
  warningDetails: z.array(EnvelopeWarningDetailSchema).max(L.maxListLength).optional(),
  messages: z.array(text).max(L.maxListLength).optional(),
  messagesDropped: positiveInt.optional(),
  value: EnvelopeValueSchema.optional(),
  /** What the runner left out or could not do, in words (r-image/runner/value.R, plots.R). */
  notes: z.array(text).max(L.maxNotes).optional(),
  /** "on", "off", or "failed: <why>" (r-image/runner/plots.R). */
  plotCapture: short.optional(),
  /** The pages the runner's own device wrote, as it found them once every device was closed. */
  plotPages: z.array(z.strictObject({ name: short, bytes: positiveInt })).max(1000).optional(),
  validation: z.array(EnvelopeValidationErrorSchema).max(L.maxValidationErrors).optional(),
  /** The capsule's report of the layers it armed (parseCapsuleReport). */
  capsule: z.string().max(512).optional(),
  /** A session's call: whether it restored, what the workspace holds, whether a snapshot was written. */
  session: EnvelopeSessionSchema.optional(),
});
export type RunnerEnvelope = z.infer<typeof RunnerEnvelopeSchema>;

/** A plot page's file name: the device's opening and the page within it (r-image/runner/plots.R). */
export const PLOT_PAGE_PATTERN = '^d[0-9]{3}-p[0-9]{5}\\.(png|svg)$';

const RName = z.string().min(1).max(10_000);
const PlotSettingsSchema = z.strictObject({
  format: z.enum(['png', 'svg']),
  width: z.number().int().min(1).max(100_000),
  height: z.number().int().min(1).max(100_000),
  dpi: z.number().int().min(1).max(10_000),
});

/** What the handler writes to input.json; the runner checks the same fields (r-image/runner/inputs.R). */
export const RunnerInputSchema = z.strictObject({
  // Bounded where the event is parsed; here only a whole number R can hold.
  timeoutSeconds: z.number().int().min(1).max(2 ** 31 - 1),
  /**
   * Seconds from the script's start past which no R time limit may reach (the capsule clamps
   * setTimeLimit() to it): the script's timeout plus half the kill grace, so R's own limit still
   * fires before the handler's kill.
   */
  deadlineSeconds: z.number().positive().max(2 ** 31 - 1),
  allowedPackages: z.array(RName).max(100_000),
  /** null when tree-sitter found a syntax error. */
  treeSitterSymbols: z.array(z.string().max(1_000_000)).max(10_000_000).nullable(),
  variables: z.array(z.strictObject({ name: RName, value: z.unknown() })).max(100_000),
  dataframes: z.array(z.strictObject({ name: RName, file: z.string().min(1).max(4096) })).max(10_000),
  caps: z.strictObject(Object.fromEntries(RUNNER_CAP_KEYS.map((k) => [k, positiveInt])) as Record<keyof RunnerCaps, typeof positiveInt>),
  /** The plot device's settings; null: no capture (R's default device). */
  plots: PlotSettingsSchema.nullable(),
  /** The request's context as JSON text, bound in R as `.context`; absent: no binding. */
  contextJson: z.string().optional(),
  /** How the runner reads contextJson (layers/contract/context-encoding.ts); absent: `json`. */
  contextEncoding: z.enum(CONTEXT_ENCODINGS).optional(),
  /** Test-only (JUBE_R_TEST_ESCAPED_RUNNER): evaluate without the R layer, as an escaped script would. */
  testEscaped: z.boolean().optional(),
  /** A session's call (r-image/runner/R/session.R); absent: the call keeps nothing. */
  session: RunnerSessionSchema.optional(),
});
export type RunnerInput = z.infer<typeof RunnerInputSchema>;

/** How a JSON value of a field looks to R's check (r-image/runner/inputs.R check_input). */
export type SeamFieldType = 'number' | 'string' | 'boolean' | 'array' | 'object' | 'array-or-null' | 'object-or-null';

/** The field table the runner checks input.json against, derived from RunnerInputSchema. */
export function inputFieldTable(): { name: string; type: SeamFieldType; optional: boolean }[] {
  return Object.entries(RunnerInputSchema.shape).map(([name, schema]) => {
    let inner: z.ZodType = schema;
    let optional = false;
    let nullable = false;
    for (;;) {
      if (inner instanceof z.ZodOptional) {
        optional = true;
        inner = inner.unwrap() as z.ZodType;
      } else if (inner instanceof z.ZodNullable) {
        nullable = true;
        inner = inner.unwrap() as z.ZodType;
      } else break;
    }
    const base: SeamFieldType =
      inner instanceof z.ZodNumber ? 'number'
        : inner instanceof z.ZodString || inner instanceof z.ZodEnum ? 'string'
          : inner instanceof z.ZodBoolean ? 'boolean'
            : inner instanceof z.ZodArray ? 'array'
              : 'object';
    const type = nullable ? (`${base}-or-null` as SeamFieldType) : base;
    return { name, type, optional };
  });
}

/** r-image/runner/seam.json: the file names and the input table, for the R side. */
export function runnerSeam() {
  return {
    files: RUNNER_FILES,
    resultMarkers: RESULT_MARKERS,
    plotPagePattern: PLOT_PAGE_PATTERN,
    inputFields: inputFieldTable(),
    capKeys: RUNNER_CAP_KEYS,
    rJson: R_JSON,
    valueLimits: VALUE_LIMITS,
    // The runner's re-validation refuses the same direct calls /validate does (r-image/runner/R/parse.R).
    capabilityFunctions: capabilityCallRows(),
    // What a session's snapshot may hold (layers/contract/session.ts), for its writer and reader.
    session: SNAPSHOT_SEAM,
  };
}

/** seam.json's exact text (scripts/write-runner-seam.mts writes it). */
export const runnerSeamJson = (): string => `${JSON.stringify(runnerSeam(), null, 2)}\n`;

/**
 * The capsule's report, parsed: "preload=armed landlock=abi6 seccomp=active
 * dispatch=patched(...) got=sealed(...)", "preload=off", or whatever a failing capsule said. Only
 * `preload=armed` as the first field counts as armed.
 */
export interface CapsuleReport {
  readonly armed: boolean;
  readonly landlockAbi: number | undefined;
  readonly seccomp: boolean;
  /** The capability rows patched into R's dispatch table ("dispatch=patched(...)"). */
  readonly dispatch: boolean;
  /** Every loaded object's PLT pages sealed read-only ("got=sealed(...)"). */
  readonly got: boolean;
  /** Defences a test control turned off ("off=dispatch,got"). */
  readonly off: readonly string[];
  /** The report as written, for logs and the unarmed response. */
  readonly text: string;
}

export function parseCapsuleReport(report: string | undefined): CapsuleReport | undefined {
  if (report === undefined) return undefined;
  const fields = report.trim().split(/\s+/);
  const value = (key: string) => {
    const field = fields.find((f) => f.startsWith(`${key}=`));
    return field?.slice(key.length + 1);
  };
  const landlock = /^abi(\d{1,3})$/.exec(value('landlock') ?? '');
  return {
    armed: fields[0] === 'preload=armed',
    landlockAbi: landlock ? Number(landlock[1]) : undefined,
    seccomp: value('seccomp') === 'active',
    dispatch: (value('dispatch') ?? '').startsWith('patched('),
    got: (value('got') ?? '').startsWith('sealed('),
    off: (value('off') ?? '').split(',').filter((d) => d.length > 0),
    text: report,
  };
}
