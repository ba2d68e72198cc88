/** The sandbox has only its working directory; absolute or home paths will not be there. */
import { NodeKind } from '../context.ts';
import type { LintRule } from '../context.ts';
import { decodeStringLiteral } from '../r-strings.ts';

const ABSOLUTE = /^(?:\/[A-Za-z0-9._-]+\/|~\/|[A-Za-z]:[\\/])/;

export const absolutePath: LintRule = {
  summary: 'Absolute and home paths do not exist in the sandbox; use relative paths.',
  severity: 'info',
  nodeTypes: [NodeKind.string],
  interest: () => ({ strings: (value) => ABSOLUTE.test(value) }),
  visit(visit, findings) {
    const value = decodeStringLiteral(visit.text());
    if (!ABSOLUTE.test(value)) return;
    findings.lint(
      `The path '${value.slice(0, 60)}' is absolute; the script runs in a private working directory, so use a relative path (dataframe inputs arrive there as files).`,
    );
  },
};
