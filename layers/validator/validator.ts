/**
 * The validator's public face: load once (grammar, compiled rules), then validate synchronously.
 * shape check -> parse -> syntax errors -> one static walk running every check and lint rule.
 * A rejected script is a normal result; no input string makes it throw or hang.
 *
 * Its findings are advice (docs/script-rules.md): what a script may do is enforced below R by the
 * capsule; the checks turn away, with a useful message, what would fail there anyway (a direct
 * call of a capability function, a package that is not installed or is blocked) and the lints
 * point at common mistakes.
 *
 * It reads no file itself: the caller hands it the rules and the package lists
 * (package-lists.ts), so each caller decides where they come from and what a missing manifest means.
 */
import type { Point } from 'web-tree-sitter';
import { symbolsOfTree } from '../parser/symbol-inventory.ts';
import { getParser } from '../parser/tree-sitter.ts';
import type { ScriptRules } from '../rules/rules.ts';
import type {
  LintFinding,
  ValidationError,
  ValidationErrorCode,
  ValidationResult,
} from '../contract/validation.ts';
import { CHECKS } from './checks/index.ts';
import { compileRules } from './context.ts';
import type { CompiledRules, Findings } from './context.ts';
import { LINT_RULES } from './lint/index.ts';
import { checkShape } from './shape.ts';
import { syntaxErrors } from './syntax.ts';
import { findCandidates, mergeInterests } from './candidates.ts';
import { walkCandidates, walkTree } from './walk.ts';
import type { Dispatch, Visitor } from './walk.ts';
import type { ValidatorPackages } from './package-lists.ts';

export interface ValidatorOptions extends ValidatorPackages {
  readonly rules: ScriptRules;
  /** Most errors (and, separately, lint findings) reported for one script. */
  readonly maxFindings?: number;
  /** Parsing is abandoned (and the script rejected) after this long; a backstop, never hit by real scripts. */
  readonly parseBudgetMs?: number;
  /**
   * 'candidates' (default) visits only the tokens the lexical pre-scan flags; 'full' visits every
   * node. Same findings by construction; tests run both to prove it.
   */
  readonly walk?: 'candidates' | 'full';
}

/**
 * Validates a script. `inventory`, when given, receives the symbols of the tree the validator
 * parsed (layers/parser/symbol-inventory.ts) once that tree is known to hold no syntax error, so
 * the execute function hands R's cross-check the same parse instead of parsing again.
 */
export type Validator = (script: string, inventory?: (symbols: string[]) => void) => ValidationResult;

/** How long one parse may take before the script is rejected (PARSE_TIMEOUT). */
export const DEFAULT_PARSE_BUDGET_MS = 5_000;

export const DEFAULT_MAX_FINDINGS = 100;
const MAX_SYNTAX_ERRORS = 10;

function buildDispatch(): Dispatch {
  const byType = new Map<string, Visitor[]>();
  const add = (types: readonly string[], visitor: Visitor): void => {
    for (const type of types) {
      const list = byType.get(type) ?? [];
      list.push(visitor);
      byType.set(type, list);
    }
  };
  for (const check of Object.values(CHECKS)) add(check.nodeTypes, check.visit);
  for (const [id, rule] of Object.entries(LINT_RULES)) {
    add(rule.nodeTypes, (visit, findings) => {
      const collector = findings as Collector;
      collector.currentLint = [id, rule.severity];
      rule.visit(visit, findings);
      collector.currentLint = NO_LINT;
    });
  }
  return byType;
}

interface Positioned {
  line: number;
  column: number;
  message: string;
}
/** Document order; ties broken by message so the order never depends on the walk driver. */
const byPosition = (a: Positioned, b: Positioned): number =>
  a.line - b.line || a.column - b.column || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0);

const NO_LINT: [string, LintFinding['severity']] = ['', 'info'];

/** Collects one script's findings; its position defaults to the node being visited. */
class Collector implements Findings {
  readonly errors: ValidationError[] = [];
  readonly lints: LintFinding[] = [];
  currentLint = NO_LINT;
  here: () => Point = () => ({ row: 0, column: 0 });

  constructor(
    readonly rules: CompiledRules,
    private readonly max: number,
  ) {}

  error(code: ValidationErrorCode, message: string, symbol?: string, at?: Point): void {
    if (this.errors.length >= this.max) return;
    const p = at ?? this.here();
    this.errors.push({ code, message, line: p.row + 1, column: p.column + 1, ...(symbol === undefined ? {} : { symbol }) });
  }

  lint(message: string, at?: Point): void {
    if (this.lints.length >= this.max) return;
    const p = at ?? this.here();
    const [rule, severity] = this.currentLint;
    this.lints.push({ rule, message, line: p.row + 1, column: p.column + 1, severity });
  }

  full(): boolean {
    return this.errors.length >= this.max;
  }
}

export async function loadValidator(options: ValidatorOptions): Promise<Validator> {
  const { rules } = options;
  const compiled = compileRules(rules, options.installedPackages);
  const dispatch = buildDispatch();
  const interest = mergeInterests([
    ...Object.values(CHECKS).map((c) => c.interest(compiled)),
    ...Object.values(LINT_RULES).map((r) => r.interest(compiled)),
  ]);
  const full = options.walk === 'full';
  const maxFindings = options.maxFindings ?? DEFAULT_MAX_FINDINGS;
  const parseBudgetMs = options.parseBudgetMs ?? DEFAULT_PARSE_BUDGET_MS;
  const parser = await getParser();
  const limits = rules.script;

  const finish = (start: number, errors: ValidationError[], lint: LintFinding[]): ValidationResult => ({
    valid: errors.length === 0,
    errors: errors.sort(byPosition),
    lint: lint.sort(byPosition),
    durationMs: performance.now() - start,
  });

  return (script: string, inventory?: (symbols: string[]) => void): ValidationResult => {
    const start = performance.now();
    if (typeof script !== 'string') {
      return finish(start, [{ code: 'SCRIPT_EMPTY', message: 'The script must be a string of R code.', line: 1, column: 1 }], []);
    }
    try {
      const shape = checkShape(script, limits);
      if (shape.length > 0) return finish(start, shape, []);

      const deadline = start + parseBudgetMs;
      const tree = parser.parse(script, null, { progressCallback: () => performance.now() > deadline });
      if (!tree) {
        return finish(
          start,
          [{ code: 'PARSE_TIMEOUT', message: `The script could not be parsed within ${parseBudgetMs} ms; simplify it.`, line: 1, column: 1 }],
          [],
        );
      }
      try {
        if (tree.rootNode.hasError) return finish(start, syntaxErrors(tree, MAX_SYNTAX_ERRORS), []);
        inventory?.(symbolsOfTree(tree));
        const collector = new Collector(compiled, maxFindings);
        const walkOptions = {
          dispatch,
          findings: collector,
          shouldStop: () => collector.full(),
          bindPosition: (here: () => Point) => (collector.here = here),
        };
        if (full) walkTree(tree, walkOptions);
        else walkCandidates(tree, findCandidates(script, interest), walkOptions);
        return finish(start, collector.errors, collector.lints);
      } finally {
        tree.delete();
      }
    } catch (cause) {
      // A fault in the validator must not let a script through: fail closed, say so.
      return finish(
        start,
        [
          {
            code: 'VALIDATOR_FAULT',
            message: `The validator could not analyse this script (${cause instanceof Error ? cause.message : String(cause)}); it is rejected.`,
            line: 1,
            column: 1,
          },
        ],
        [],
      );
    }
  };
}
