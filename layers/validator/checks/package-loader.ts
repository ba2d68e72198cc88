/**
 * library(), require(), requireNamespace(), loadNamespace() and attachNamespace() of a package
 * named literally must name one a script may load: installed and not blocked. A package named
 * through a variable is not this check's to know (names are advice; loading is not a capability).
 */
import { NodeKind, argumentsOf, literalName } from '../context.ts';
import type { Check } from '../context.ts';
import { packageNotAllowedMessage } from './packages.ts';

/** The argument a loader takes the package from, by its formal name. */
const PACKAGE_FORMALS: ReadonlySet<string> = new Set(['package', 'ns']);

export const packageLoader: Check = {
  summary: 'A package loaded by name must be installed and not blocked.',
  nodeTypes: [NodeKind.call],
  interest: (rules) => ({ names: rules.loaders }),
  visit(visit, findings) {
    if (!findings.rules.loaders.has(visit.frame.callee)) return;
    const args = argumentsOf(visit.node());
    const named = args.find((a) => a.name !== undefined && PACKAGE_FORMALS.has(a.name));
    const arg = named ?? args.find((a) => a.name === undefined);
    // character.only = TRUE reads the name from the variable the argument names.
    if (!arg || args.some((a) => a.name === 'character.only' && a.value?.type !== 'false')) return;
    const pkg = literalName(arg.value);
    if (pkg === undefined || findings.rules.allowedPackages.has(pkg) && findings.rules.installedPackages.has(pkg)) return;
    findings.error('PACKAGE_NOT_ALLOWED', packageNotAllowedMessage(pkg, findings.rules), pkg, arg.value?.startPosition);
  },
};
