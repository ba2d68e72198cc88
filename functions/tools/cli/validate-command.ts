/**
 * `jube-r validate [--format json|text] FILE|-`: the ValidationResult as JSON (default), or one
 * compiler-style line per finding (`FILE:LINE:COL: CODE message`) that editors and agents parse;
 * exit 0 valid, 1 invalid, 2 usage error (no file, an unreadable file, extra arguments).
 */
import { loadManifest } from '../../../layers/packages/manifest.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import type { ValidationResult } from '../../../layers/contract/validation.ts';
import { manifestPackages } from '../../../layers/validator/package-lists.ts';
import { loadValidator } from '../../../layers/validator/validator.ts';
import { isHelp, type Command } from './command.ts';
import { readScript } from './read-script.ts';

export const USAGE = `usage: jube-r validate [--format json|text] FILE|-

Checks an R script against the script rules without running it; - reads the script from stdin.

  --format json   the validation result as JSON (the default)
  --format text   one line per finding, as compilers print them:
                    FILE:LINE:COL: CODE message             (an error: the script is rejected)
                    FILE:LINE:COL: warning|info RULE message (lint: advice only)
                  then, for a script that may run, FILE: valid
  -h, --help      this help

exit status: 0 valid, 1 invalid, 2 usage error`;

const FORMATS = ['json', 'text'] as const;
type Format = (typeof FORMATS)[number];

/**
 * The text format: every finding in document order (an error before lint at the same place), one
 * line each, then `FILE: valid` when the script may run (silence would not say whether it was checked).
 */
export function formatText(file: string, result: ValidationResult): string {
  const findings = [
    ...result.errors.map((e) => ({ line: e.line, column: e.column, rank: 0, head: e.code, message: e.message })),
    ...result.lint.map((l) => ({ line: l.line, column: l.column, rank: 1, head: `${l.severity} ${l.rule}`, message: l.message })),
  ].sort((a, b) => a.line - b.line || a.column - b.column || a.rank - b.rank);
  const lines = findings.map((f) => `${file}:${f.line}:${f.column}: ${f.head} ${f.message.replace(/\s*\n\s*/g, ' ')}\n`).join('');
  return result.valid ? `${lines}${file}: valid\n` : lines;
}

interface ValidateArguments {
  readonly help: boolean;
  readonly format: Format;
  readonly source: string;
}

/** The arguments, or a usage error's message. */
export function parseValidateArguments(args: readonly string[]): ValidateArguments | string {
  let format: Format = 'json';
  const sources: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (isHelp(arg)) return { help: true, format, source: '' };
    if (arg === '--format' || arg.startsWith('--format=')) {
      const value = arg === '--format' ? args[++i] : arg.slice('--format='.length);
      if (!FORMATS.includes(value as Format)) return `--format takes ${FORMATS.join(' or ')}`;
      format = value as Format;
    } else if (arg.startsWith('--')) {
      return `unknown option ${arg}`;
    } else {
      sources.push(arg);
    }
  }
  if (sources.length !== 1 || sources[0] === '') return 'give exactly one FILE, or - for stdin';
  return { help: false, format, source: sources[0]! };
}

const command: Command = async (args) => {
  const parsed = parseValidateArguments(args);
  if (typeof parsed === 'string') {
    process.stderr.write(`jube-r validate: ${parsed}\n${USAGE}\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let script: string;
  try {
    script = await readScript(parsed.source);
  } catch (cause) {
    process.stderr.write(`jube-r validate: cannot read ${parsed.source}: ${cause instanceof Error ? cause.message : String(cause)}\n`);
    return 2;
  }
  const validate = await loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
  const result = validate(script);
  const file = parsed.source === '-' ? '<stdin>' : parsed.source;
  process.stdout.write(parsed.format === 'text' ? formatText(file, result) : `${JSON.stringify(result, null, 2)}\n`);
  return result.valid ? 0 : 1;
};
export default command;
