/**
 * `pkg::name` may only name an allowed package, or a listed export of a named-exports package
 * (`rlang::sym`), the latter with its arguments checked where the rules list them (`withr::with_options`);
 * `:::` is the blocked-operator check's (with the listed internal functions of packages.internalFunctions).
 */
import { NodeKind } from '../context.ts';
import type { Check } from '../context.ts';
import { checkExportArguments } from './export-arguments.ts';
import { namedExportMessage, packageNotAllowedMessage } from './packages.ts';

export const namespacePackage: Check = {
  summary: 'pkg::name must name an allowed package.',
  nodeTypes: [NodeKind.namespaceOperator],
  interest: () => ({ operators: ['::', ':::'] }),
  visit(visit, findings) {
    const pkg = visit.frame.calleePackage;
    if (pkg === '' || findings.rules.allowedPackages.has(pkg)) return;
    const exports = findings.rules.namedExports.get(pkg);
    if (exports !== undefined) {
      const name = visit.frame.nsName;
      if (!exports.has(name)) {
        findings.error('PACKAGE_NOT_ALLOWED', namedExportMessage(pkg, name, findings.rules), pkg);
        return;
      }
      const spec = findings.rules.checkedExports.get(`${pkg}::${name}`);
      if (spec === undefined) return;
      const called = visit.field === 'function' && visit.ancestor(1)?.type === NodeKind.call;
      checkExportArguments(pkg, name, spec, called ? visit.node().parent! : undefined, findings);
      return;
    }
    findings.error('PACKAGE_NOT_ALLOWED', packageNotAllowedMessage(pkg, findings.rules), pkg);
  },
};
