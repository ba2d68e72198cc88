/** A package named by a loader or `pkg::` that the image does not have, with the nearest name. */
import type { Point } from 'web-tree-sitter';
import { NodeKind, literalName } from '../context.ts';
import type { LintRule } from '../context.ts';
import { closest } from '../suggest.ts';

export const packageNotInstalled: LintRule = {
  summary: 'A package used via library()/require()/pkg:: is not installed.',
  severity: 'warning',
  nodeTypes: [NodeKind.namespaceOperator, NodeKind.call],
  interest: (rules) => ({ operators: ['::', ':::'], names: rules.loaders }),
  visit(visit, findings) {
    const rules = findings.rules;
    let pkg: string;
    let at: Point | undefined;
    if (visit.type === NodeKind.namespaceOperator) {
      pkg = visit.frame.calleePackage;
    } else {
      if (!rules.loaders.has(visit.frame.callee)) return;
      const first = visit.node().childForFieldName('arguments')?.namedChildren.find((a) => a?.type === NodeKind.argument);
      const value = first?.childForFieldName('value');
      const name = literalName(value);
      if (!value || name === undefined) return;
      at = value.startPosition;
      pkg = name;
    }
    if (pkg === '' || rules.installedPackages.has(pkg)) return;
    const near = closest(pkg, rules.installedPackageList);
    findings.lint(`Package '${pkg}' is not installed.${near ? ` Did you mean '${near}'?` : ' GET /packages lists the installed ones.'}`, at);
  },
};
