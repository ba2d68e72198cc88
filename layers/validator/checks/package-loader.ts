/**
 * library()/require()/requireNamespace()/loadNamespace()/attachNamespace() may load one allowed
 * package named literally, with only harmless named arguments: `lib.loc` would load code from a
 * writable directory and `character.only` or a variable would hide the name from this check.
 * A loader used as a value (`lapply(pkgs, library, character.only = TRUE)`) hides it as well,
 * except read as a column (`filter(d, library == "a")`; functionValueAsData in relaxations.ts).
 */
import type { Node } from 'web-tree-sitter';
import { NodeKind, functionValueName, literalName } from '../context.ts';
import type { Check, Findings } from '../context.ts';
import { packageArguments } from './package-argument.ts';
import { packageNotAllowedMessage } from './packages.ts';
import { functionValueAsData } from '../relaxations.ts';

/** The argument a loader takes the package from, by its formal name. */
const PACKAGE_ARGUMENTS: ReadonlySet<string> = new Set(['package', 'ns']);

function checkLoaderCall(loader: string, call: Node, findings: Findings): void {
  const { rules } = findings;
  const allowed = [...rules.loaderNamedArguments].join(', ');
  const { packageArg, extraPackageArgs, refused } = packageArguments(call, PACKAGE_ARGUMENTS, rules.loaderNamedArguments);
  for (const arg of extraPackageArgs) {
    findings.error('PACKAGE_LOADER_ARGUMENT', `${loader}() takes one package name here; pass other options by name (allowed: ${allowed}).`, loader, arg.startPosition);
  }
  for (const { name, arg } of refused) {
    findings.error(
      'PACKAGE_LOADER_ARGUMENT',
      `The argument '${name}' of ${loader}() is not allowed (it could load code from elsewhere or hide the package name); remove it. Allowed: ${allowed}.`,
      name,
      arg.startPosition,
    );
  }
  if (!packageArg) {
    findings.error('PACKAGE_LOADER_ARGUMENT', `${loader}() must name one package, e.g. ${loader}(dplyr).`, loader);
    return;
  }
  const value = packageArg.childForFieldName('value');
  const pkg = literalName(value);
  if (pkg === undefined) {
    findings.error(
      'PACKAGE_LOADER_ARGUMENT',
      `${loader}() must name its package literally (e.g. ${loader}(dplyr) or ${loader}("dplyr")), not through a variable or expression.`,
      loader,
      (value ?? packageArg).startPosition,
    );
    return;
  }
  if (!rules.allowedPackages.has(pkg)) {
    findings.error('PACKAGE_NOT_ALLOWED', packageNotAllowedMessage(pkg, rules), pkg, value?.startPosition);
  }
}

export const packageLoader: Check = {
  summary: 'Package loaders must name one allowed package literally, with harmless named arguments only.',
  nodeTypes: [NodeKind.call, NodeKind.identifier, NodeKind.string],
  interest: (rules) => ({ names: rules.loaders }),
  visit(visit, findings) {
    const { loaders } = findings.rules;
    if (visit.type === NodeKind.call) {
      if (loaders.has(visit.frame.callee)) checkLoaderCall(visit.frame.callee, visit.node(), findings);
      return;
    }
    const name = functionValueName(visit, findings.rules);
    if (name === undefined) return;
    if (!loaders.has(name)) return;
    const data = functionValueAsData(visit, name, findings, false);
    if (data === true) return;
    const why = data === undefined ? '' : ` As a column it would be allowed here, but ${data}: rename that, or write .data$${name}.`;
    findings.error(
      'PACKAGE_LOADER_ARGUMENT',
      `${name} may only be called directly with a literal package name (e.g. ${name}(dplyr)), not passed around as a value.${why}`,
      name,
    );
  },
};
