/** `pkg::name` and `pkg:::name` must name a package a script may load: installed and not blocked. */
import { NodeKind } from '../context.ts';
import type { Check } from '../context.ts';
import { packageNotAllowedMessage } from './packages.ts';

export const namespacePackage: Check = {
  summary: 'pkg::name must name an installed package that is not blocked.',
  nodeTypes: [NodeKind.namespaceOperator],
  interest: () => ({ operators: ['::', ':::'] }),
  visit(visit, findings) {
    const pkg = visit.frame.calleePackage;
    const { allowedPackages, installedPackages } = findings.rules;
    if (pkg === '' || (allowedPackages.has(pkg) && installedPackages.has(pkg))) return;
    findings.error('PACKAGE_NOT_ALLOWED', packageNotAllowedMessage(pkg, findings.rules), pkg);
  },
};
