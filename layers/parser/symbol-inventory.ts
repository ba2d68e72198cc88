/**
 * The symbols and calls tree-sitter sees in a script, for the cross-check against R's own parser
 * (the R runner's re-validation, r-image/runner/R/parse.R): the R runner lists the symbol tokens of
 * getParseData() (SYMBOL, SYMBOL_FUNCTION_CALL, SYMBOL_SUB, SYMBOL_FORMALS, SYMBOL_PACKAGE, SLOT),
 * a called one (SYMBOL_FUNCTION_CALL) with "(" after its name, and rejects the script with
 * PARSER_DISAGREEMENT when the two sorted lists differ. A script the two parsers read differently
 * is exactly where a static check on one of them can be fooled.
 */
import type { Node, Parser, Tree } from 'web-tree-sitter';

/** Backquotes are quoting, not part of the name; `...` and `..1` are not looked up by name. */
export function normalizeSymbol(text: string): string | undefined {
  const name = text.length >= 2 && text.startsWith('`') && text.endsWith('`') ? text.slice(1, -1) : text;
  return name === '...' || /^\.\.\d+$/.test(name) ? undefined : name;
}

/** The node is the callee of a call: f(), or the name after ::, ::: or $ in pkg::f(), x$f() (R's SYMBOL_FUNCTION_CALL). */
function isCalled(node: Node): boolean {
  let callee = node;
  const parent = node.parent;
  if (parent && (parent.type === 'namespace_operator' || (parent.type === 'extract_operator' && parent.childForFieldName('operator')?.type === '$'))) {
    if (parent.childForFieldName('rhs')?.id !== node.id) return false;
    callee = parent;
  }
  const call = callee.parent;
  return call?.type === 'call' && call.childForFieldName('function')?.id === callee.id;
}

/** Sorted (with repeats) symbol names of a tree without syntax errors; a called one with "(" after it. */
export function symbolsOfTree(tree: Tree): string[] {
  const names: string[] = [];
  const cursor = tree.walk();
  try {
    let descending = true;
    for (;;) {
      if (descending && cursor.nodeType === 'identifier') {
        const name = normalizeSymbol(cursor.nodeText);
        if (name !== undefined) names.push(isCalled(cursor.currentNode) ? `${name}(` : name);
      }
      if (descending && cursor.gotoFirstChild()) continue;
      if (cursor.gotoNextSibling()) {
        descending = true;
        continue;
      }
      if (!cursor.gotoParent()) break;
      descending = false;
    }
  } finally {
    cursor.delete();
  }
  return names.sort();
}

/**
 * The same inventory for a script no validator parsed (a test's own validator, the test-only
 * escaped runner): parsed under the same budget as the validator's parse, undefined when
 * tree-sitter reports a syntax error or runs out of time.
 */
export function treeSitterSymbols(parser: Parser, script: string, budgetMs: number): string[] | undefined {
  const deadline = performance.now() + budgetMs;
  const tree = parser.parse(script, null, { progressCallback: () => performance.now() > deadline });
  if (!tree) return undefined;
  try {
    return tree.rootNode.hasError ? undefined : symbolsOfTree(tree);
  } finally {
    tree.delete();
  }
}
