/**
 * A forbidden symbol wherever R would look it up: called, used as a value (`f <- system`),
 * passed (`lapply(x, system)`), `pkg::` qualified, backquoted, or a replacement function
 * reached through an assignment (`body(f) <- v` calls `body<-`). Names R never looks up
 * (assignment targets, argument names, `$`/`@` fields, formal parameters) are allowed, and so
 * are the rules' relaxations (relaxations.ts): a name read as a column, and do.call()/match.fun()
 * naming a function literally or local() with its one block.
 */
import { NodeKind, nameRole } from '../context.ts';
import type { Check, Findings, Visit } from '../context.ts';
import {
  attachProblem,
  columnUse,
  columnUseWithdrawn,
  consoleDiversionProblem,
  dataNameUse,
  environmentReadProblem,
  environmentSettingProblem,
  examplePackageNode,
  exampleProblem,
  freshEnvironmentProblem,
  literalCallProblem,
  localCallProblem,
  workingDirectoryProblem,
} from '../relaxations.ts';
import { packageNotAllowedMessage } from './packages.ts';
import { decodeName, decodeStringLiteral } from '../r-strings.ts';
import { forbiddenMessage } from './advice.ts';

export const forbiddenSymbol: Check = {
  summary: 'Rejects any reference to a forbidden symbol: call, value, argument, qualified, backquoted, or replacement call.',
  nodeTypes: [NodeKind.identifier, NodeKind.string, NodeKind.call],
  interest: (rules) => ({ names: [...rules.forbidden.keys(), ...rules.forbiddenReplacementBases] }),
  visit(visit, findings) {
    const { forbidden } = findings.rules;
    if (visit.type === NodeKind.call) {
      if (!visit.frame.target || visit.frame.callee === '') return;
      const replacement = `${visit.frame.callee}<-`;
      const category = forbidden.get(replacement);
      if (category !== undefined) {
        findings.error(
          'FORBIDDEN_SYMBOL',
          forbiddenMessage(replacement, category, ` (called by \`${visit.frame.callee}(...) <- value\`)`),
          replacement,
        );
      }
      return;
    }
    if (visit.type === NodeKind.string) {
      // Only `pkg::"name"` is a lookup here; strings as functions are the string check's job.
      if (visit.ancestor(1)?.type !== NodeKind.namespaceOperator || visit.field !== 'rhs') return;
    }
    const role = nameRole(visit);
    if (role !== 'call' && role !== 'reference') return;
    const text = visit.text();
    const name = visit.type === NodeKind.string ? decodeStringLiteral(text) : decodeName(text);
    const category = forbidden.get(name);
    if (category === undefined) return;
    if (role === 'call') {
      const problem = relaxedCallProblem(visit, name, findings);
      if (problem === null) return;
      const message = problem ? `\`${name}\` is allowed in jube-r only in its plain form: ${problem}.` : forbiddenMessage(name, category, '');
      findings.error('FORBIDDEN_SYMBOL', message, name);
      return;
    }
    if (dataNameUse(visit, name, findings)) return;
    const use = columnUse(visit, findings.rules);
    const withdrawn = use && columnUseWithdrawn(use, visit, findings);
    if (use && !withdrawn) return;
    const message = withdrawn
      ? `\`${name}\` is forbidden in jube-r (${category}); as a column it would be allowed here, but ${withdrawn}, which could be handed the function itself: rename that, or write .data$${name}.`
      : `${forbiddenMessage(name, category, ' even as a value or argument, since whatever receives it can call it')}${COLUMN_HINT}`;
    findings.error('FORBIDDEN_SYMBOL', message, name);
  },
};

const COLUMN_HINT =
  ' If it is a column, write .data$name, or use it bare in a column function (filter(), mutate(), aes(), ...) or beside an operator (==, >, +, ...).';

/**
 * For a forbidden name called directly (not `pkg::`), whether a relaxation allows this call:
 * null when it does, '' when none applies, else why the relaxation refused it.
 */
function relaxedCallProblem(visit: Visit, name: string, findings: Findings): string | null {
  const rules = findings.rules;
  const relaxable =
    rules.literalNameFunctions.has(name) ||
    rules.localFunctions.has(name) ||
    rules.environmentSettings.functions.has(name) ||
    rules.attachFunctions.has(name) ||
    rules.exampleFunctions.has(name) ||
    rules.freshEnvironmentFunctions.has(name) ||
    rules.environmentReads.functions.has(name) ||
    rules.workingDirectoryFunctions.has(name) ||
    rules.consoleDiversion.functions.has(name);
  // `base::local(...)` is `local(...)` and `utils::example(...)` is `example(...)`: where the plain name resolves to anyway.
  // Not `base:::local(...)` nor `base::"local"(...)`, which the R re-validation refuses as written.
  const home = rules.localFunctions.has(name) ? 'base' : rules.exampleFunctions.has(name) ? rules.examplePackage : undefined;
  const ns = visit.ancestor(1);
  const viaBase =
    home !== undefined && visit.type === NodeKind.identifier && ns?.type === NodeKind.namespaceOperator && ns.op === '::' &&
    ns.calleePackage === home && visit.field === 'rhs' && visit.ancestor(2)?.type === NodeKind.call && ns.field === 'function';
  if (visit.ancestor(1)?.type !== NodeKind.call && !viaBase) return relaxable ? `write ${name}() without a pkg:: prefix` : '';
  const call = viaBase ? visit.node().parent!.parent! : visit.node().parent!;
  if (rules.literalNameFunctions.has(name)) return literalCallProblem(name, call, rules, findings.facts) ?? null;
  if (rules.localFunctions.has(name)) return localCallProblem(name, call) ?? null;
  if (rules.environmentSettings.functions.has(name)) return environmentSettingProblem(name, call, rules) ?? null;
  if (rules.attachFunctions.has(name)) return attachProblem(name, call, rules) ?? null;
  if (rules.freshEnvironmentFunctions.has(name)) return freshEnvironmentProblem(name, call) ?? null;
  if (rules.exampleFunctions.has(name)) {
    const problem = exampleProblem(name, call, rules);
    if (problem !== undefined) return problem;
    // Its examples run as the script's own code, which may load only the allowed packages.
    const pkg = examplePackageNode(call);
    const pkgName = pkg === undefined ? undefined : decodeStringLiteral(pkg.text);
    if (pkgName !== undefined && !rules.allowedPackages.has(pkgName)) {
      findings.error('PACKAGE_NOT_ALLOWED', packageNotAllowedMessage(pkgName, rules), pkgName, pkg!.startPosition);
    }
    return null;
  }
  if (rules.environmentReads.functions.has(name)) return environmentReadProblem(name, call, rules) ?? null;
  if (rules.workingDirectoryFunctions.has(name)) return workingDirectoryProblem(name, call) ?? null;
  if (rules.consoleDiversion.functions.has(name)) return consoleDiversionProblem(name, call, rules) ?? null;
  return '';
}
