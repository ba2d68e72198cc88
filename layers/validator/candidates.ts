/**
 * The lexical pre-scan behind the fast walk: one linear pass over the text, with the same lexical
 * states as R (code, strings with escapes, raw strings, backquoted names, comments), returning
 * the start offset of every token some check or lint rule could care about. It must find a
 * superset of what the checks report (tests compare it with the full walk); it may over-report,
 * since every candidate is re-examined on the real tree.
 */
import { decodeName, decodeStringLiteral } from './r-strings.ts';

/** What one check or lint rule looks at; see `Check.interest`. */
export interface Interest {
  /** Names (identifiers, backquoted names, string values) worth a look. */
  readonly names?: Iterable<string>;
  /** Operator tokens worth a look wherever they appear (`<<-`, `::`, ...). */
  readonly operators?: Iterable<string>;
  /** Operator tokens worth a look outside any bracket (top-level `=`). */
  readonly topLevelOperators?: Iterable<string>;
  /** Operator tokens worth a look right after the literal 1 (`1:length(x)`). */
  readonly operatorsAfterOne?: Iterable<string>;
  /** A string value worth a look although not in `names`. */
  readonly strings?: (value: string) => boolean;
  /** Any name (identifier, backquoted name or string) worth a look although not in `names`. */
  readonly nameTest?: (name: string) => boolean;
  /** Every string followed by `(` (past blanks and comments): a string called as a function. */
  readonly calledStrings?: boolean;
}

/** The union of every check's interest, as sets for the scan. */
export interface CandidateInterest {
  readonly names: ReadonlySet<string>;
  /** The longest interesting name: longer identifiers are skipped without slicing. */
  readonly maxNameLength: number;
  readonly operators: ReadonlySet<string>;
  readonly topLevelOperators: ReadonlySet<string>;
  readonly operatorsAfterOne: ReadonlySet<string>;
  readonly stringTest: (value: string) => boolean;
  /** Absent when no interest has one, so the scan slices no identifier it need not. */
  readonly nameTest: ((name: string) => boolean) | undefined;
  readonly calledStrings: boolean;
}

export function mergeInterests(interests: readonly Interest[]): CandidateInterest {
  const names = new Set<string>();
  const operators = new Set<string>();
  const topLevelOperators = new Set<string>();
  const operatorsAfterOne = new Set<string>();
  const tests: ((value: string) => boolean)[] = [];
  const nameTests: ((name: string) => boolean)[] = [];
  let calledStrings = false;
  for (const interest of interests) {
    if (interest.calledStrings) calledStrings = true;
    for (const name of interest.names ?? []) names.add(name);
    for (const op of interest.operators ?? []) operators.add(op);
    for (const op of interest.topLevelOperators ?? []) topLevelOperators.add(op);
    for (const op of interest.operatorsAfterOne ?? []) operatorsAfterOne.add(op);
    if (interest.strings) tests.push(interest.strings);
    if (interest.nameTest) nameTests.push(interest.nameTest);
  }
  let maxNameLength = 0;
  for (const name of names) maxNameLength = Math.max(maxNameLength, name.length);
  return {
    names,
    maxNameLength,
    operators,
    topLevelOperators,
    operatorsAfterOne,
    stringTest: (value) => tests.some((test) => test(value)),
    nameTest: nameTests.length === 0 ? undefined : (name) => nameTests.some((test) => test(name)),
    calledStrings,
  };
}

/** Whether the next token after offset `i` is `(`: blanks, line ends and comments skipped. */
function followedByParen(s: string, i: number): boolean {
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12) {
      i += 1;
    } else if (c === 35) {
      while (i < n && s.charCodeAt(i) !== 10 && s.charCodeAt(i) !== 13) i += 1;
    } else {
      return c === 40;
    }
  }
  return false;
}

const isNameStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95;
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 48 && c <= 57);
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13 || c === 10 || c === 12;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** End (exclusive) of the numeric literal at `i`: 12, 1.5e-3, .5, 0x1F, 1L, 2i. */
function endOfNumber(s: string, i: number): number {
  let j = i;
  if (s.charCodeAt(j) === 48 && (s.charCodeAt(j + 1) === 120 || s.charCodeAt(j + 1) === 88)) {
    j += 2;
    while (isHexDigit(s.charCodeAt(j)) || s.charCodeAt(j) === 46) j += 1;
    if (s.charCodeAt(j) === 112 || s.charCodeAt(j) === 80) {
      j += 1;
      if (s.charCodeAt(j) === 43 || s.charCodeAt(j) === 45) j += 1;
      while (isDigit(s.charCodeAt(j))) j += 1;
    }
  } else {
    while (isDigit(s.charCodeAt(j)) || s.charCodeAt(j) === 46) j += 1;
    if (s.charCodeAt(j) === 101 || s.charCodeAt(j) === 69) {
      j += 1;
      if (s.charCodeAt(j) === 43 || s.charCodeAt(j) === 45) j += 1;
      while (isDigit(s.charCodeAt(j))) j += 1;
    }
  }
  if (s.charCodeAt(j) === 76 || s.charCodeAt(j) === 105) j += 1;
  return j;
}

/** End (exclusive) of the quoted token opened at `i` by `quote`, honouring backslash escapes. */
function endOfQuoted(s: string, i: number, quote: number): number {
  const n = s.length;
  for (let j = i + 1; j < n; j += 1) {
    const c = s.charCodeAt(j);
    if (c === 92) j += 1;
    else if (c === quote) return j + 1;
  }
  return n;
}

/** End (exclusive) of a raw string whose opening bracket is at `open` after `dashes` dashes. */
function endOfRaw(s: string, open: number, dashes: number, quote: number): number {
  const close = s.charCodeAt(open) === 40 ? 41 : s.charCodeAt(open) === 91 ? 93 : 125;
  const n = s.length;
  for (let j = open + 1; j < n; j += 1) {
    if (s.charCodeAt(j) !== close) continue;
    let k = 0;
    while (k < dashes && s.charCodeAt(j + 1 + k) === 45) k += 1;
    if (k === dashes && s.charCodeAt(j + 1 + dashes) === quote) return j + 2 + dashes;
  }
  return n;
}

/** Whether the token before `i` (skipping blanks) is the literal 1 or 1L, as in `1:length(x)`. */
function followsOne(s: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && (s.charCodeAt(k) === 32 || s.charCodeAt(k) === 9)) k -= 1;
  if (k >= 0 && s.charCodeAt(k) === 76) k -= 1;
  return k >= 0 && s.charCodeAt(k) === 49 && (k === 0 || !isNameChar(s.charCodeAt(k - 1)));
}

export function findCandidates(s: string, interest: CandidateInterest): number[] {
  const out: number[] = [];
  const n = s.length;
  let depth = 0;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 35) {
      // Comment: to the end of the line, which a CR alone ends too (tree-sitter and R agree).
      let eol = i + 1;
      while (eol < n && s.charCodeAt(eol) !== 10 && s.charCodeAt(eol) !== 13) eol += 1;
      i = eol;
      continue;
    }
    if (c === 34 || c === 39) {
      const end = endOfQuoted(s, i, c);
      const value = decodeStringLiteral(s.slice(i, end));
      if (interest.names.has(value) || interest.stringTest(value) || interest.nameTest?.(value) || (interest.calledStrings && followedByParen(s, end))) {
        out.push(i);
      }
      i = end;
      continue;
    }
    if (c === 96) {
      const end = endOfQuoted(s, i, c);
      const name = decodeName(s.slice(i, end));
      if (interest.names.has(name) || interest.nameTest?.(name)) out.push(i);
      i = end;
      continue;
    }
    if ((c === 114 || c === 82) && (s.charCodeAt(i + 1) === 34 || s.charCodeAt(i + 1) === 39)) {
      // r"(...)", R'[...]', r"--{...}--": a raw string, unless the brackets are missing.
      const quote = s.charCodeAt(i + 1);
      let open = i + 2;
      while (s.charCodeAt(open) === 45) open += 1;
      const b = s.charCodeAt(open);
      if (b === 40 || b === 91 || b === 123) {
        const end = endOfRaw(s, open, open - i - 2, quote);
        const value = decodeStringLiteral(s.slice(i, end));
        if (interest.names.has(value) || interest.stringTest(value) || interest.nameTest?.(value) || (interest.calledStrings && followedByParen(s, end))) {
          out.push(i);
        }
        i = end;
        continue;
      }
    }
    if (isNameStart(c)) {
      let j = i + 1;
      while (j < n && isNameChar(s.charCodeAt(j))) j += 1;
      if (c === 46 && isDigit(s.charCodeAt(i + 1))) {
        // ".5" is a number, not a name.
        i = endOfNumber(s, i);
        continue;
      }
      if ((j - i <= interest.maxNameLength && interest.names.has(s.slice(i, j))) || interest.nameTest?.(s.slice(i, j))) out.push(i);
      i = j;
      continue;
    }
    if (c >= 48 && c <= 57) {
      // Only what R reads as a number, so a name glued to it (`2system`) still starts a token.
      i = endOfNumber(s, i);
      continue;
    }
    if (c === 40 || c === 91 || c === 123) {
      depth += 1;
      i += 1;
      continue;
    }
    if (c === 41 || c === 93 || c === 125) {
      if (depth > 0) depth -= 1;
      i += 1;
      continue;
    }
    if (c === 37) {
      // %op%: one token up to the next % on the line.
      let j = i + 1;
      while (j < n && s.charCodeAt(j) !== 37 && s.charCodeAt(j) !== 10 && s.charCodeAt(j) !== 13) j += 1;
      const end = j < n && s.charCodeAt(j) === 37 ? j + 1 : j;
      if (interest.operators.has(s.slice(i, end))) out.push(i);
      i = end;
      continue;
    }
    if (isSpace(c) || c > 127) {
      i += 1;
      continue;
    }
    const op = operatorAt(s, i, c);
    if (
      interest.operators.has(op) ||
      (depth === 0 && interest.topLevelOperators.has(op)) ||
      (interest.operatorsAfterOne.has(op) && followsOne(s, i))
    ) {
      out.push(i);
    }
    i += op.length;
  }
  return out;
}

/** The operator token starting at `i` (longest match), or the single character. */
function operatorAt(s: string, i: number, c: number): string {
  const c1 = s.charCodeAt(i + 1);
  const c2 = s.charCodeAt(i + 2);
  switch (c) {
    case 60: // <
      if (c1 === 60 && c2 === 45) return '<<-';
      if (c1 === 45) return '<-';
      if (c1 === 61) return '<=';
      return '<';
    case 45: // -
      if (c1 === 62 && c2 === 62) return '->>';
      if (c1 === 62) return '->';
      return '-';
    case 58: // :
      if (c1 === 58 && c2 === 58) return ':::';
      if (c1 === 58) return '::';
      if (c1 === 61) return ':=';
      return ':';
    case 61: // =
      return c1 === 61 ? '==' : '=';
    case 33: // !
      return c1 === 61 ? '!=' : '!';
    case 62: // >
      return c1 === 61 ? '>=' : '>';
    case 124: // |
      if (c1 === 62) return '|>';
      return c1 === 124 ? '||' : '|';
    case 38: // &
      return c1 === 38 ? '&&' : '&';
    default:
      return s.charAt(i);
  }
}
