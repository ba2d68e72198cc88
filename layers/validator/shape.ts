/**
 * The shape check: what can be refused from the raw text alone, before any parser sees it
 * (docs/script-rules.md). One linear pass that knows R's lexical states (code, quoted
 * string, backquoted name, raw string, comment), so brackets inside text do not count as nesting.
 * Pure, allocation-free apart from the errors it returns.
 */
import type { ValidationError } from '../contract/validation.ts';

export interface ShapeLimits {
  readonly maxBytes: number;
  readonly maxNestingDepth: number;
}

const isNameChar = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 46 || code === 95;

/** Errors about the script's shape; empty when the parser may look at it. */
export function checkShape(script: string, limits: ShapeLimits): ValidationError[] {
  if (script.trim() === '') {
    return [{ code: 'SCRIPT_EMPTY', message: 'The script is empty; send the R code to validate.', line: 1, column: 1 }];
  }
  const bytes = Buffer.byteLength(script, 'utf8');
  if (bytes > limits.maxBytes) {
    return [
      {
        code: 'SCRIPT_TOO_LARGE',
        message: `The script is ${bytes} bytes; the limit is ${limits.maxBytes}. Shorten it or move data into a dataframe input.`,
        line: 1,
        column: 1,
      },
    ];
  }
  return scan(script, limits.maxNestingDepth);
}

const enum State {
  Code,
  Quoted,
  Raw,
  Comment,
}

function scan(s: string, maxDepth: number): ValidationError[] {
  const errors: ValidationError[] = [];
  let state = State.Code;
  let quote = 0;
  let rawClose = 0;
  let rawDashes = 0;
  let depth = 0;
  let deepReported = false;
  let nulReported = false;
  let line = 1;
  let lineStart = 0;
  const n = s.length;
  for (let i = 0; i < n; i += 1) {
    const c = s.charCodeAt(i);
    if (c === 10) {
      line += 1;
      lineStart = i + 1;
      if (state === State.Comment) state = State.Code;
      continue;
    }
    if (c === 0) {
      if (!nulReported) {
        nulReported = true;
        errors.push({
          code: 'NUL_BYTE',
          message: 'The script contains a NUL byte (\\0), which R cannot hold in code or strings; remove it.',
          line,
          column: i - lineStart + 1,
        });
      }
      continue;
    }
    switch (state) {
      case State.Comment:
        break;
      case State.Quoted:
        if (c === 92) {
          const next = s.charCodeAt(i + 1);
          // A NUL after a backslash must still be seen by the NUL check.
          if (next === 0) break;
          // An escaped newline still ends a line for positions.
          if (next === 10) {
            line += 1;
            lineStart = i + 2;
          }
          i += 1;
        } else if (c === quote) state = State.Code;
        break;
      case State.Raw:
        if (c === rawClose) {
          let j = i + 1;
          let k = 0;
          while (k < rawDashes && s.charCodeAt(j) === 45) {
            j += 1;
            k += 1;
          }
          if (k === rawDashes && s.charCodeAt(j) === quote) {
            state = State.Code;
            i = j;
          }
        }
        break;
      case State.Code:
        if (c === 35) state = State.Comment;
        else if (c === 34 || c === 39 || c === 96) {
          const prev = i > 0 ? s.charCodeAt(i - 1) : 0;
          const prevPrev = i > 1 ? s.charCodeAt(i - 2) : 0;
          const rawPrefix = c !== 96 && (prev === 114 || prev === 82) && !isNameChar(prevPrev);
          quote = c;
          state = State.Quoted;
          if (rawPrefix) {
            let j = i + 1;
            while (s.charCodeAt(j) === 45) j += 1;
            const open = s.charCodeAt(j);
            if (open === 40 || open === 91 || open === 123) {
              rawDashes = j - i - 1;
              rawClose = open === 40 ? 41 : open === 91 ? 93 : 125;
              state = State.Raw;
              i = j;
            }
          }
        } else if (c === 40 || c === 91 || c === 123) {
          depth += 1;
          if (depth > maxDepth && !deepReported) {
            deepReported = true;
            errors.push({
              code: 'NESTING_TOO_DEEP',
              message: `Brackets nest deeper than ${maxDepth} levels here; flatten the code (name intermediate results).`,
              line,
              column: i - lineStart + 1,
            });
          }
        } else if (c === 41 || c === 93 || c === 125) {
          if (depth > 0) depth -= 1;
        }
        break;
    }
  }
  return errors;
}
