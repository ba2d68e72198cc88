/**
 * What the API answered, as MCP tool results: content a host can show and a model can read, and
 * `structuredContent` with the whole answer for programs. Pure: no I/O, no SDK objects beyond types.
 *
 * r_execute: the cause and line of a failure come first; then the console, the value, the result,
 * warnings, messages and notes as text; each plot as an `image` item; each out/ file as an embedded
 * resource (text for text types, base64 `blob` otherwise). A rejected script never ran: its
 * findings come with their codes and what to change, as a tool error (`isError`).
 * structuredContent is the whole answer, but a plot's or file's bytes are in `content` once: there
 * it carries `content`, the index of its content item, instead of `data` (r_execute's outputSchema,
 * McpExecuteResultSchema).
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorBody, HealthResponse, PackagesResponse, SessionEndResponse } from '../../../layers/contract/api.ts';
import { z } from 'zod';
import { ExecuteResponseSchema, OutputFileSchema, PlotSchema, type ExecuteResponse, type OutputFile } from '../../../layers/contract/execute.ts';
import type { ValidationError, ValidationErrorCode, ValidationResult } from '../../../layers/contract/validation.ts';
import { failureText } from '../../../layers/contract/failure-text.ts';

/** What to change for each validation code, in a model's terms. Exhaustive: a new code needs advice. */
export const VALIDATION_ADVICE: Readonly<Record<ValidationErrorCode, string>> = {
  SCRIPT_EMPTY: 'send a script with at least one expression',
  SCRIPT_TOO_LARGE: 'shorten the script (limits.maxScriptBytes); pass data as variables, context or dataframes instead of inlining it',
  NUL_BYTE: 'remove the NUL byte',
  NESTING_TOO_DEEP: 'flatten the nested calls or blocks (limits.maxScriptNestingDepth)',
  SYNTAX_ERROR: 'fix the R syntax at that line and column',
  PARSE_TIMEOUT: 'the parser ran out of time: simplify or split the script',
  VALIDATOR_FAULT: 'the validator itself failed, not the script; retry once, then report it',
  CAPABILITY_NOT_AVAILABLE: 'the sandbox refuses what this call does (the message says what instead); do it in R another way',
  PACKAGE_NOT_ALLOWED: 'use only the packages r_packages lists (the message names the nearest)',
  PARSER_DISAGREEMENT: 'two R parsers read this construct differently; write it more plainly',
};

const text = (value: string): ContentBlock => ({ type: 'text', text: value });

/** Where a plot's or a file's bytes are: the index of its item in the tool result's `content`. */
const contentRef = { content: z.number().int().min(0).describe('the index of the content item that carries the bytes') };

/** r_execute's structuredContent: the /execute answer with each returned plot's and file's bytes replaced by `content`. */
export const McpExecuteResultSchema = ExecuteResponseSchema.extend({
  plots: z.array(PlotSchema.omit({ data: true }).extend(contentRef)).optional(),
  files: z.array(OutputFileSchema.omit({ data: true }).extend({ content: contentRef.content.optional() })).optional(),
});
export type McpExecuteResult = z.infer<typeof McpExecuteResultSchema>;

/** One finding per line, `line:column CODE message`, as compilers print them, with its advice. */
export function findingLines(errors: readonly ValidationError[]): string[] {
  return errors.map(
    (e) => `${e.line}:${e.column} ${e.code} ${e.message}${e.symbol ? ` (${e.symbol})` : ''}; ${VALIDATION_ADVICE[e.code]}`,
  );
}

export function validationResult(result: ValidationResult): CallToolResult {
  const lint = result.lint.map((l) => `${l.line}:${l.column} lint ${l.severity} ${l.rule}: ${l.message}`);
  const head = result.valid
    ? 'valid: r_execute will accept this script'
    : `invalid: r_execute would reject this script without running it. Fix each finding:\n${findingLines(result.errors).join('\n')}`;
  return { content: [text([head, ...lint].join('\n'))], structuredContent: result };
}

/**
 * A failure, first its cause, line and hints (failureText, the runner's own text); then for an error
 * the call and the script's frames.
 */
function failureLines(response: ExecuteResponse): string {
  if (response.status === 'rejected') {
    const errors = response.validation?.errors ?? [];
    const lines = errors.length > 0 ? findingLines(errors) : [response.error ?? 'rejected'];
    return `rejected: the script was not run. Fix each finding (r_validate checks a script without running it):\n${lines.join('\n')}`;
  }
  const lines = [failureText(response)];
  const details = response.errorDetails;
  if (!response.timedOut && details) {
    if (details.call !== null) lines.push(`in: ${details.call}`);
    if (details.traceback.length > 0) {
      lines.push('traceback (outermost first):', ...details.traceback.map((f) => `  ${f.call}${f.line === undefined ? '' : ` (line ${f.line})`}`));
    }
    lines.push(`class: ${details.class.join(', ')}`);
  }
  return lines.join('\n');
}

/** What the workspace holds after the call, and what the next call will not get. */
function sessionText(response: ExecuteResponse): string | undefined {
  const session = response.session;
  if (!session) return undefined;
  const objects = session.objects.map((o) => `${o.name} (${o.class})`);
  const more = session.objectsOmitted ? [`${session.objectsOmitted} more`] : [];
  const held = objects.length > 0 ? [...objects, ...more].join(', ') : 'nothing';
  const started = session.state === 'restored' ? 'the workspace of the call before came back' : 'started with an empty workspace';
  const dropped = (session.dropped ?? []).map((d) => d.name);
  return `session call ${session.call} (${started}); workspace now: ${held}${dropped.length > 0 ? `; not kept for the next call: ${dropped.join(', ')}` : ''}`;
}

function valueText(response: ExecuteResponse): string | undefined {
  const value = response.value;
  if (!value) return undefined;
  const body = value.kind === 'json' ? JSON.stringify(value.json) : value.printed;
  return `value (${value.class.join(', ')}):\n${body}${value.kind === 'printed' && value.truncated ? '\n[truncated]' : ''}`;
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|csv|x-ndjson)\b)/;

/** The `jube-r://out/<name>` URI of an out/ file: each path segment percent-encoded. */
export const outUri = (name: string): string => `jube-r://out/${name.split('/').map(encodeURIComponent).join('/')}`;

function fileContent(file: OutputFile): ContentBlock | undefined {
  if (file.data === undefined) return undefined;
  const uri = outUri(file.name);
  return TEXT_TYPES.test(file.mimeType)
    ? { type: 'resource', resource: { uri, mimeType: file.mimeType, text: Buffer.from(file.data, 'base64').toString('utf8') } }
    : { type: 'resource', resource: { uri, mimeType: file.mimeType, blob: file.data } };
}

function listLines(title: string, items: readonly string[] | undefined): string | undefined {
  return items && items.length > 0 ? `${title}:\n${items.map((item) => `- ${item}`).join('\n')}` : undefined;
}

export function executeResult(response: ExecuteResponse): CallToolResult {
  const failed = response.status !== 'ok';
  const files = response.files ?? [];
  const notReturned = files
    .filter((f) => f.data === undefined)
    .map((f) => `${f.name}: ${f.skipped ? `skipped (${f.skipped})` : 'not returned (over the file caps)'}`);
  const omitted = response.plotsOmitted ? [`${response.plotsOmitted} plot(s) drawn but not returned (over the plot caps)`] : [];
  const texts = [
    failed ? failureLines(response) : `ok in ${response.durationMs} ms (R ${response.rVersion})`,
    response.consoleOutput === '' ? undefined : `console:\n${response.consoleOutput}`,
    valueText(response),
    response.result === undefined ? undefined : `result:\n${JSON.stringify(response.result)}`,
    response.resultWarning,
    listLines('warnings', response.warnings),
    listLines('messages', response.messages),
    listLines('notes', [...(response.notes ?? []), ...omitted, ...notReturned]),
    sessionText(response),
  ].filter((t): t is string => t !== undefined);
  const content: ContentBlock[] = texts.map(text);
  const plots = (response.plots ?? []).map(({ data, ...plot }) => {
    content.push({ type: 'image', data, mimeType: plot.mimeType });
    return { ...plot, content: content.length - 1 };
  });
  const referenced = files.map(({ data, ...file }) => {
    const item = fileContent({ ...file, ...(data === undefined ? {} : { data }) });
    if (item === undefined) return file;
    content.push(item);
    return { ...file, content: content.length - 1 };
  });
  const { plots: _plots, files: _files, ...rest } = response;
  const structured: McpExecuteResult = {
    ...rest,
    ...(response.plots === undefined ? {} : { plots }),
    ...(response.files === undefined ? {} : { files: referenced }),
  };
  return { content, structuredContent: structured, ...(failed ? { isError: true } : {}) };
}

/** What a caller should do about an API error, by status. */
function errorAdvice(status: number): string {
  if (status === 400) return 'fix the request fields named above and call again';
  if (status === 404) return 'the named data or route does not exist for this caller';
  if (status === 413) return 'the request is over a size limit (r_health limits): send less';
  if (status === 429 || status === 503) return 'the service is busy and nothing ran; wait and call again';
  if (status === 502 || status === 504) return 'the script may have run; it was not retried: check before running it again';
  return 'quote the requestId when reporting it';
}

export function apiErrorResult(status: number, message: string, body: ErrorBody | undefined): CallToolResult {
  const issues = (body?.issues ?? []).map((i) => `${i.path || '(body)'}: ${i.message}`);
  const lines = [message, ...issues, errorAdvice(status), ...(body ? [`requestId ${body.requestId}`] : [])];
  return { content: [text(lines.join('\n'))], isError: true };
}

export function failureResult(message: string): CallToolResult {
  return { content: [text(message)], isError: true };
}

/** GET /help's answer: the page as text. */
export function helpResult(answer: { topic: string; package: string; text: string }): CallToolResult {
  return { content: [text(`${answer.package}::${answer.topic}\n\n${answer.text}`)], structuredContent: answer };
}

/** GET /help's 404: the nearest installed topics, when the route named any. */
export function helpNotFoundResult(topic: string, message: string, suggestions: readonly unknown[]): CallToolResult {
  const named = suggestions.map((s) => (typeof s === 'string' ? s : JSON.stringify(s)));
  const lines = [message, named.length > 0 ? `nearest installed topics: ${named.join(', ')}` : `no installed topic is near "${topic}"`];
  return { content: [text(lines.join('\n'))], isError: true };
}

export function healthResult(health: HealthResponse): CallToolResult {
  const l = health.limits;
  const lines = [
    `jube-r ${health.version}, R ${health.rVersion}`,
    `sandbox layers below R (${health.sandbox.source}): ${health.sandbox.layers.join(', ') || 'none reported'}`,
    `isolation: one execution environment per ${health.isolation.mode} (boundary ${health.isolation.boundary}, tenancy ${health.isolation.tenancy})`,
    `timeout: ${l.scriptTimeoutSecondsDefault} s by default, at most ${l.scriptTimeoutSecondsMax} s`,
    `script: at most ${l.maxScriptBytes} bytes, nesting ${l.maxScriptNestingDepth}`,
    `output: console ${l.maxConsoleOutputBytes} bytes, value ${l.maxValueBytes} bytes, response ${l.maxResponseBytes} bytes`,
    `plots: at most ${l.maxPlots} (${l.maxPlotsBytes} bytes), ${l.plotWidthDefault}x${l.plotHeightDefault} px at ${l.plotDpiDefault} dpi by default, ${l.minPlotPixels}-${l.maxPlotPixels} px, ${l.minPlotDpi}-${l.maxPlotDpi} dpi`,
    `out/ files: at most ${l.maxFiles} (${l.maxFilesBytes} bytes)`,
    `bindings: ${l.maxVariables} variables (arrays of ${l.maxVariableArrayLength}, strings of ${l.maxVariableStringBytes} bytes), ${l.maxDataframes} dataframes, context ${l.maxContextDepth} levels deep`,
    `blocked packages: ${health.rules.packages.blocked.map((p) => p.name).join(', ') || 'none'}`,
    'the full limits and rules are in structuredContent',
  ];
  return { content: [text(lines.join('\n'))], structuredContent: health };
}

export function sessionEndResult(answer: SessionEndResponse): CallToolResult {
  const said = answer.deleted ? 'the workspace was emptied' : 'the workspace was already empty';
  return { content: [text(`${said}: the next r_execute starts from nothing`)], structuredContent: answer };
}

export function packagesResult(packages: PackagesResponse): CallToolResult {
  const lines = [
    `R ${packages.rVersion}; library() any of these:`,
    ...packages.packages.map((p) => `${p.name} ${p.version}${p.source === 'packages.R' ? '' : ` (${p.source})`}`),
    'not these (why; instead):',
    ...packages.blocked.map((p) => `${p.name}: ${p.why}; ${p.instead}`),
  ];
  return { content: [text(lines.join('\n'))], structuredContent: packages };
}
