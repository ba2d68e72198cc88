/**
 * rlang::is_installed() and rlang::check_installed() (packages.packageQueries) load the packages
 * they ask about, as requireNamespace() does, so they are held to the loaders' rules: the
 * packages named literally (a string or c() of strings), each one a script may load, and only
 * the listed named arguments (check_installed's `action` is a function it would call).
 */
import type { Node } from 'web-tree-sitter';
import { NodeKind } from '../context.ts';
import type { Check, Findings } from '../context.ts';
import { literalPackageNames } from '../package-names.ts';
import { packageArguments } from './package-argument.ts';
import { packageNotAllowedMessage } from './packages.ts';

/** The formal a query takes its packages from. */
const PACKAGE_ARGUMENT: ReadonlySet<string> = new Set(['pkg']);

function checkQueryCall(query: string, call: Node, findings: Findings): void {
  const { rules } = findings;
  const allowed = [...rules.packageQueryArguments].join(', ');
  const { packageArg, extraPackageArgs, refused } = packageArguments(call, PACKAGE_ARGUMENT, rules.packageQueryArguments);
  for (const arg of extraPackageArgs) {
    findings.error('PACKAGE_LOADER_ARGUMENT', `${query}() takes its packages as one argument; pass the others by name (allowed: ${allowed}).`, query, arg.startPosition);
  }
  for (const { name, arg } of refused) {
    findings.error('PACKAGE_LOADER_ARGUMENT', `The argument '${name}' of ${query}() is not allowed; remove it. Allowed: ${allowed}.`, name, arg.startPosition);
  }
  const value = packageArg?.childForFieldName('value');
  const packages = literalPackageNames(value);
  if (packages === undefined) {
    findings.error(
      'PACKAGE_LOADER_ARGUMENT',
      `${query}() must name its packages literally (e.g. ${query}("dplyr") or ${query}(c("dplyr", "tidyr"))), not through a variable or expression.`,
      query,
      (value ?? packageArg ?? call).startPosition,
    );
    return;
  }
  for (const pkg of packages) {
    if (!rules.allowedPackages.has(pkg)) findings.error('PACKAGE_NOT_ALLOWED', packageNotAllowedMessage(pkg, rules), pkg, value?.startPosition);
  }
}

export const packageQuery: Check = {
  summary: "rlang::is_installed()/check_installed() must name allowed packages literally, as the loaders must.",
  nodeTypes: [NodeKind.call],
  interest: (rules) => ({ names: [...rules.packageQueries].map((q) => q.slice(q.indexOf('::') + 2)) }),
  visit(visit, findings) {
    const query = `${visit.frame.calleePackage}::${visit.frame.callee}`;
    if (findings.rules.packageQueries.has(query)) checkQueryCall(query, visit.node(), findings);
  },
};
