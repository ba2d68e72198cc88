/**
 * Syntax errors from tree-sitter's error recovery: an ERROR node is text the grammar could not
 * place ("unexpected ..."), a MISSING node a token it had to invent ("missing ')'").
 * Walked with a cursor (no recursion); ERROR subtrees are reported once, not descended.
 */
import type { Tree } from 'web-tree-sitter';
import type { ValidationError } from '../contract/validation.ts';

const HINT = 'check brackets, quotes and operators around this position';

function describeUnexpected(text: string): string {
  const token = text.trimStart().split(/\s/, 1)[0] ?? '';
  if (token === '') return `unexpected end of input; the expression before it is incomplete (${HINT})`;
  const first = token[0];
  if (first === '"' || first === "'" || first === '`') return `unterminated ${first === '`' ? 'backquoted name' : 'string'} starting ${token.slice(0, 20)}`;
  return `unexpected '${token.slice(0, 20)}' (${HINT})`;
}

function describeMissing(expected: string): string {
  if (expected === 'string_close') return 'unterminated string: it is missing its closing quote';
  if (!/^[a-z_]+$/.test(expected)) return `missing '${expected}' (${HINT})`;
  const words = expected.replace(/_/g, ' ');
  return `missing ${/^[aeiou]/.test(words) ? 'an' : 'a'} ${words}: the expression is incomplete (${HINT})`;
}

export function syntaxErrors(tree: Tree, max: number): ValidationError[] {
  const errors: ValidationError[] = [];
  const cursor = tree.walk();
  try {
    for (;;) {
      const node = cursor.currentNode;
      const message = node.isMissing ? describeMissing(node.type) : node.isError ? describeUnexpected(node.text) : undefined;
      if (message !== undefined) {
        errors.push({ code: 'SYNTAX_ERROR', message, line: node.startPosition.row + 1, column: node.startPosition.column + 1 });
      }
      // An ERROR or MISSING node is reported once; only a subtree holding one further down is descended.
      const descend = message === undefined && node.hasError;
      if (errors.length >= max) break;
      if (descend && cursor.gotoFirstChild()) continue;
      let moved = false;
      while (!(moved = cursor.gotoNextSibling())) {
        if (!cursor.gotoParent()) break;
      }
      if (!moved) break;
    }
  } finally {
    cursor.delete();
  }
  if (errors.length === 0) {
    errors.push({ code: 'SYNTAX_ERROR', message: `the script does not parse (${HINT})`, line: 1, column: 1 });
  }
  return errors;
}
