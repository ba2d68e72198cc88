/** `pkg::name` may only name an allowed package (`:::` is the blocked-operator check's). */
import { NodeKind } from '../context.ts';
import type { Check } from '../context.ts';
import { packageNotAllowedMessage } from './packages.ts';

export const namespacePackage: Check = {
  summary: 'pkg::name must name an allowed package.',
  nodeTypes: [NodeKind.namespaceOperator],
  interest: () => ({ operators: ['::', ':::'] }),
  visit(visit, findings) {
    const pkg = visit.frame.calleePackage;
    if (pkg === '' || findings.rules.allowedPackages.has(pkg)) return;
    findings.error('PACKAGE_NOT_ALLOWED', packageNotAllowedMessage(pkg, findings.rules), pkg);
  },
};
