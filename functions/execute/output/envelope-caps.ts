/**
 * Every published cap applied to every field the envelope carries into the response, pure: the
 * runner applies the same caps before writing, but a script that escaped the R layer writes its
 * own envelope, so the handler never relies on that. What a cap cut is flagged (`truncated`) and,
 * where a caller could not tell otherwise, said in a note.
 */
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { ErrorDetails, Value, WarningDetail } from '../../../layers/contract/execute.ts';
import type { RunnerEnvelope, ValueCut } from '../../../layers/contract/runner.ts';
import { VALUE_LIMITS } from '../../../layers/contract/execute.ts';
import type { ValidationError } from '../../../layers/contract/validation.ts';
import { raiseBudgetHint, type ResolvedBudget } from '../../../layers/config/output-budget.ts';
import { capText, capWarnings } from './caps.ts';
import { jsonBytes } from './json-bounds.ts';

export type ResponseCaps = ServiceConfig['caps'];

export interface CappedEnvelope {
  readonly error: string | null;
  readonly warnings: string[];
  readonly warningDetails: WarningDetail[];
  readonly messages: string[];
  readonly errorDetails: ErrorDetails | undefined;
  readonly value: Value | undefined;
  readonly notes: string[];
  readonly validation: ValidationError[];
  readonly truncated: boolean;
}

/** Class vectors are R's, a handful of short names; anything longer is not R's. */
const MAX_CLASSES = 16;
const MAX_CLASS_BYTES = 256;
/** The runner gives at most one hint per kind of mistake it recognises. */
const MAX_HINTS = 5;

function capClasses(classes: readonly string[]): { value: string[]; cut: boolean } {
  const value = classes.slice(0, MAX_CLASSES).map((c) => capText(c, MAX_CLASS_BYTES).value);
  return { value, cut: classes.length > MAX_CLASSES || value.some((c, i) => c !== classes[i]) };
}

export function capErrorDetails(details: NonNullable<RunnerEnvelope['errorDetails']>, caps: ResponseCaps): { value: ErrorDetails; cut: boolean } {
  const message = capText(details.message, caps.errorBytes);
  const call = details.call === null ? { value: null, truncated: false } : capText(details.call, caps.callBytes);
  const frames = details.traceback.slice(0, caps.tracebackFrames).map((f) => ({ ...f, call: capText(f.call, caps.callBytes) }));
  const cls = capClasses(details.class);
  const hints = details.hints?.slice(0, MAX_HINTS).map((h) => capText(h, caps.noteBytes));
  const value: ErrorDetails = {
    ...details,
    class: cls.value,
    message: message.value,
    call: call.value,
    traceback: frames.map((f) => ({ ...f, call: f.call.value })),
    ...(hints ? { hints: hints.map((h) => h.value) } : {}),
  };
  const cut = message.truncated || call.truncated || cls.cut || details.traceback.length > frames.length || frames.some((f) => f.call.truncated) ||
    (details.hints?.length ?? 0) > MAX_HINTS || hints?.some((h) => h.truncated) === true;
  return { value, cut };
}

function capWarningDetails(details: readonly WarningDetail[], count: number, caps: ResponseCaps): { value: WarningDetail[]; cut: boolean } {
  let cut = details.length > count;
  const value = details.slice(0, count).map((d) => {
    const call = d.call === null ? { value: null, truncated: false } : capText(d.call, caps.callBytes);
    cut ||= call.truncated;
    return { ...d, call: call.value };
  });
  return { value, cut };
}

/** How to get more of what a budget field cut; without a resolved budget, the /health limit. */
function hint(field: Parameters<typeof raiseBudgetHint>[0], budget: ResolvedBudget | undefined, limit: string): string {
  return budget ? raiseBudgetHint(field, budget) : `GET /health?detail=full limits.${limit}`;
}

/**
 * The value within valueBytes: a JSON value over the cap is dropped, a printed one cut. A printed
 * value is `truncated` when print() stopped at max.print or its text was cut (by the runner or
 * here); its note names each cap that shortened it, from the runner's `cuts` (a value printed
 * only because its JSON was over valueBytes is whole, but the note says so).
 */
export function capValue(
  value: NonNullable<RunnerEnvelope['value']>, valueBytes: number, budget?: ResolvedBudget,
): { value: Value | undefined; cut: boolean; note?: string } {
  const cls = capClasses(value.class);
  const raise = hint('valueBytes', budget, 'maxValueBytes');
  if (value.kind === 'printed') {
    const { cuts: said, ...rest } = value;
    const printed = capText(value.printed, valueBytes);
    const cuts = new Set<ValueCut>(said ?? []);
    // A runner's `truncated` without a reason, or the handler's own cut: the byte cap.
    if (printed.truncated || (value.truncated === true && !cuts.has('maxPrint'))) cuts.add('valueBytes');
    const shortened = cuts.has('maxPrint') || cuts.has('valueBytes');
    return {
      value: { ...rest, class: cls.value, printed: printed.value, ...(shortened ? { truncated: true } : {}) },
      cut: shortened || cuts.has('json') || cls.cut,
      ...(cuts.size > 0 ? { note: printedValueNote(cuts, valueBytes, raise) } : {}),
    };
  }
  // The types count against the same cap: the runner fits both into it (r-image/runner/value.R).
  const bytes = jsonBytes(value.json, valueBytes) + (value.types === undefined ? 0 : jsonBytes(value.types, valueBytes));
  if (bytes > valueBytes) {
    return { value: undefined, cut: true, note: `the value was left out: its JSON is larger than ${valueBytes} bytes; ${raise}` };
  }
  return { value: { ...value, class: cls.value }, cut: cls.cut };
}

/** Which caps shortened a printed value, and what gets more: valueBytes where it fired, else a smaller value. */
export function printedValueNote(cuts: ReadonlySet<ValueCut>, valueBytes: number, raise: string): string {
  const form = [
    ...(cuts.has('maxPrint') ? [`stopped at R's max.print (${VALUE_LIMITS.maxPrint} entries; its last line counts what was left out)`] : []),
    ...(cuts.has('valueBytes') ? [`was cut to ${valueBytes} bytes`] : []),
  ];
  const what = [
    ...(cuts.has('json') ? [`the value came back printed: its JSON is larger than ${valueBytes} bytes`] : []),
    ...(form.length > 0 ? [`${cuts.has('json') ? 'its' : "the value's"} printed form ${form.join(' and ')}`] : []),
  ];
  const smaller = 'return the rows you need (head(x, n), x[i, ]) or a summary as the last value';
  const more = cuts.has('json') || cuts.has('valueBytes')
    ? `${raise}${cuts.has('json') ? ' (as JSON)' : ''}${cuts.has('maxPrint') ? `, or ${smaller}` : ''}`
    : `max.print is fixed for the value: ${smaller}`;
  return `${what.join('; ')}; ${more}`;
}

function capValidation(errors: readonly ValidationError[], caps: ResponseCaps): { value: ValidationError[]; cut: boolean } {
  let cut = errors.length > caps.validationErrors;
  const value = errors.slice(0, caps.validationErrors).map((e) => {
    const message = capText(e.message, caps.errorBytes);
    const symbol = e.symbol === undefined ? undefined : capText(e.symbol, caps.callBytes);
    cut ||= message.truncated || symbol?.truncated === true;
    return { ...e, message: message.value, ...(symbol ? { symbol: symbol.value } : {}) };
  });
  return { value, cut };
}

/**
 * At most caps.notes notes of at most caps.noteBytes each; the last of `notes` kept says how many
 * more there were. `pinned` (the post-run budget's note) always comes last, inside the cap.
 */
export function capNotes(
  notes: readonly string[],
  caps: Pick<ResponseCaps, 'notes' | 'noteBytes'>,
  pinned: readonly string[] = [],
): { value: string[]; cut: boolean } {
  const kept = pinned.slice(0, caps.notes);
  const cutEach = notes.slice(0, caps.notes - kept.length).map((n) => capText(n, caps.noteBytes));
  const value = cutEach.map((n) => n.value);
  const dropped = notes.length - value.length;
  if (dropped > 0 && value.length > 0) value[value.length - 1] = `${dropped + 1} more note(s) were left out (GET /health?detail=full limits.maxNotes)`;
  const last = kept.map((n) => capText(n, caps.noteBytes));
  return { value: [...value, ...last.map((n) => n.value)], cut: dropped > 0 || cutEach.some((n) => n.truncated) || last.some((n) => n.truncated) };
}

/** `budget`: the request's resolved output budget, which the notes of the caps it set name. */
export function capEnvelope(envelope: RunnerEnvelope, caps: ResponseCaps, budget?: ResolvedBudget): CappedEnvelope {
  const error = envelope.error === null ? { value: null, truncated: false } : capText(envelope.error, caps.errorBytes);
  const warnings = capWarnings(envelope.warnings, caps.warnings, caps.warningBytes);
  const warningsDropped = (envelope.warningsDropped ?? 0) + (envelope.warnings.length - warnings.value.length);
  const warningDetails = capWarningDetails(envelope.warningDetails ?? [], warnings.value.length, caps);
  const messages = capWarnings(envelope.messages ?? [], caps.messages, caps.messageBytes);
  const messagesDropped = (envelope.messagesDropped ?? 0) + ((envelope.messages?.length ?? 0) - messages.value.length);
  const details = envelope.errorDetails ? capErrorDetails(envelope.errorDetails, caps) : undefined;
  const value = envelope.value ? capValue(envelope.value, caps.valueBytes, budget) : undefined;
  const validation = capValidation(envelope.validation ?? [], caps);
  const notes = [
    ...(envelope.notes ?? []),
    ...(error.truncated ? [`error was cut to ${caps.errorBytes} bytes (GET /health?detail=full limits.maxErrorBytes); errorDetails keeps the message and the script's frames`] : []),
    ...(warningsDropped > 0
      ? [`${warningsDropped} more distinct warning(s) were left out (identical ones are already folded); ${hint('warnings', budget, 'maxWarnings')}, within limits.maxWarningBytes`]
      : []),
    ...(messagesDropped > 0
      ? [`${messagesDropped} more distinct message(s) are only in consoleOutput; ${hint('messages', budget, 'maxMessages')}, within limits.maxMessageBytes`]
      : []),
    ...(value?.note ? [value.note] : []),
  ];
  const truncated =
    error.truncated || warnings.truncated || warningsDropped > 0 || messagesDropped > 0 || messages.truncated ||
    warningDetails.cut || details?.cut === true || value?.cut === true || validation.cut;
  return {
    error: error.value,
    warnings: warnings.value,
    warningDetails: warningDetails.value,
    messages: messages.value,
    errorDetails: details?.value,
    value: value?.value,
    notes,
    validation: validation.value,
    truncated,
  };
}
