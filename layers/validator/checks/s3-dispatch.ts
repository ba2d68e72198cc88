/**
 * S3 dispatch builds a function name from two strings: `UseMethod("Sys")` on an object of class
 * "getenv" calls `Sys.getenv`, and `update()` on an object given (by `structure(x, class =)` or `class(x) <-`) class "packages" calls `update.packages`. So a
 * generic name that prefixes a forbidden "generic.class" name, a computed generic name, and a
 * class value that completes one are rejected like the forbidden name itself.
 */
import { NodeKind } from '../context.ts';
import type { Check } from '../context.ts';
import { decodeStringLiteral } from '../r-strings.ts';

const DISPATCHERS: ReadonlySet<string> = new Set(['UseMethod', 'NextMethod']);

export const s3Dispatch: Check = {
  summary: 'Rejects S3 generic or class names that would dispatch to a forbidden function.',
  nodeTypes: [NodeKind.call, NodeKind.string],
  interest: (rules) => ({ names: [...DISPATCHERS, ...rules.forbiddenClassSuffixes] }),
  visit(visit, findings) {
    const rules = findings.rules;
    if (visit.type === NodeKind.string) {
      if (!visit.frame.classValue) return;
      const cls = decodeStringLiteral(visit.text());
      if (!rules.forbiddenClassSuffixes.has(cls)) return;
      findings.error(
        'FORBIDDEN_STRING_FUNCTION',
        `The class '${cls}' would let S3 dispatch reach a forbidden function named "<generic>.${cls}"; choose another class name.`,
        cls,
      );
      return;
    }
    const dispatcher = visit.frame.callee;
    if (!DISPATCHERS.has(dispatcher)) return;
    const args = visit.node().childForFieldName('arguments')?.namedChildren ?? [];
    const first = args.find((a) => a?.type === NodeKind.argument);
    const value = first?.childForFieldName('value');
    if (!first || !value) {
      if (dispatcher === 'UseMethod') {
        findings.error('FORBIDDEN_STRING_FUNCTION', 'UseMethod() must name its generic with a string literal.', dispatcher);
      }
      return;
    }
    const generic = value.type === NodeKind.string ? decodeStringLiteral(value.text) : undefined;
    if (generic === undefined) {
      findings.error(
        'FORBIDDEN_STRING_FUNCTION',
        `${dispatcher}() must name its generic with a string literal, e.g. ${dispatcher}("describe"); a computed name could dispatch to a forbidden function.`,
        dispatcher,
        value.startPosition,
      );
      return;
    }
    if (rules.forbiddenGenericPrefixes.has(generic) || rules.forbidden.has(generic)) {
      findings.error(
        'FORBIDDEN_STRING_FUNCTION',
        `The generic name '${generic}' would let S3 dispatch reach forbidden functions named "${generic}.<class>"; choose another generic name.`,
        generic,
        value.startPosition,
      );
    }
  },
};
