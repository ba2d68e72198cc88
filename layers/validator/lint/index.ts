/** Every lint rule (non-blocking advice), one per file; the key is the rule id reported. */
import { absolutePath } from './absolute-path.ts';
import { capabilityAdvice } from './capability-advice.ts';
import { seqLinter } from './seq-linter.ts';
import { tfLiteral } from './t-f-literal.ts';
import { topLevelEqualsAssignment } from './top-level-equals-assignment.ts';

export const LINT_RULES = {
  'capability-advice': capabilityAdvice,
  'T-F-literal': tfLiteral,
  'seq-linter': seqLinter,
  'top-level-equals-assignment': topLevelEqualsAssignment,
  'absolute-path': absolutePath,
} as const;
