/**
 * The static walk: one pass of a TreeCursor over the tree (enter events in document order, no
 * recursion, so depth costs heap, not stack), annotating a frame per level and handing each named
 * node to the checks and lint rules registered for its kind.
 */
import type { Node, Point, Tree, TreeCursor } from 'web-tree-sitter';
import { NodeKind, newFrame, isAssignmentTarget } from './context.ts';
import type { Findings, Frame, Visit } from './context.ts';
import { decodeName, decodeStringLiteral } from './r-strings.ts';

export type Visitor = (visit: Visit, findings: Findings) => void;
export type Dispatch = ReadonlyMap<string, readonly Visitor[]>;

const OPERATOR_KINDS: ReadonlySet<string> = new Set([
  NodeKind.binaryOperator,
  NodeKind.unaryOperator,
  NodeKind.namespaceOperator,
  NodeKind.extractOperator,
]);

const CLASS_SETTERS: ReadonlySet<string> = new Set(['class', 'oldClass']);

/** A name as written in a name slot: an identifier (maybe backquoted) or a string. */
function slotName(cursor: TreeCursor): string {
  const type = cursor.nodeType;
  if (type === NodeKind.identifier) return decodeName(cursor.nodeText);
  if (type === NodeKind.string) return decodeStringLiteral(cursor.nodeText);
  return '';
}

class Walk implements Visit {
  type = '';
  field: string | null = null;
  depth = 0;
  frame: Frame = newFrame();
  private readonly frames: Frame[] = [];
  private stopped = false;
  private readonly scratch: Frame = newFrame();

  constructor(
    private readonly cursor: TreeCursor,
    private readonly dispatch: Dispatch,
    private readonly findings: Findings,
    private readonly shouldStop: () => boolean,
  ) {}

  ancestor(up: number): Frame | undefined {
    return up <= this.depth ? this.frames[this.depth - up] : undefined;
  }
  text(): string {
    return this.cursor.nodeText;
  }
  node(): Node {
    return this.cursor.currentNode;
  }
  position(): Point {
    return this.cursor.startPosition;
  }

  run(): void {
    const cursor = this.cursor;
    for (;;) {
      if (cursor.nodeIsNamed) this.enter();
      if (this.stopped) return;
      if (cursor.gotoFirstChild()) {
        this.depth += 1;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return;
        this.depth -= 1;
      }
    }
  }

  private enter(): void {
    const cursor = this.cursor;
    const depth = this.depth;
    const frame = (this.frames[depth] ??= newFrame());
    const type = cursor.nodeType;
    const field = cursor.currentFieldName;
    frame.type = type;
    frame.field = field;
    frame.op = '';
    frame.callee = '';
    frame.calleePackage = '';
    frame.nsName = '';
    frame.argName = '';
    frame.argIndex = 0;
    frame.target = false;
    frame.assignsClass = false;
    frame.classValue = false;

    const parent = depth > 0 ? this.frames[depth - 1] : undefined;
    if (parent) {
      const pt = parent.type;
      if (type === NodeKind.argument) frame.argIndex = parent.argIndex++;
      if (pt === NodeKind.binaryOperator) {
        frame.target = isAssignmentTarget(parent.op, field);
        if (!frame.target && parent.assignsClass) frame.classValue = true;
      } else if (parent.target) {
        frame.target =
          (pt === NodeKind.call && field === 'arguments') ||
          (pt === NodeKind.arguments && type === NodeKind.argument && frame.argIndex === 0) ||
          (pt === NodeKind.argument && field === 'value') ||
          ((pt === NodeKind.subset || pt === NodeKind.subset2) && field === 'function') ||
          (pt === NodeKind.extractOperator && field === 'lhs');
      }
      if (parent.classValue) frame.classValue = true;
      else if (
        pt === NodeKind.argument &&
        field === 'value' &&
        parent.argName === 'class' &&
        this.frames[depth - 3]?.callee === 'structure'
      ) {
        frame.classValue = true;
      }
      if (pt === NodeKind.argument && field === 'name') parent.argName = slotName(cursor);
    }

    if (OPERATOR_KINDS.has(type)) this.peekOperator(frame);
    else if (type === NodeKind.call) this.peekCallee(frame);

    // `class(x) <- "..."`: the target call is the lhs, entered before the value.
    if (type === NodeKind.call && frame.target && parent && parent.type === NodeKind.binaryOperator && CLASS_SETTERS.has(frame.callee)) {
      parent.assignsClass = true;
    }

    const visitors = this.dispatch.get(type);
    if (!visitors) return;
    this.type = type;
    this.field = field;
    this.frame = frame;
    for (const visit of visitors) visit(this, this.findings);
    if (this.shouldStop()) this.stopped = true;
  }

  private peekOperator(frame: Frame): void {
    const cursor = this.cursor;
    if (!cursor.gotoFirstChild()) return;
    const namespace = frame.type === NodeKind.namespaceOperator;
    do {
      const field = cursor.currentFieldName;
      if (field === 'operator') {
        frame.op = cursor.nodeType;
        if (!namespace) break;
      } else if (namespace && field === 'lhs') frame.calleePackage = slotName(cursor);
      else if (namespace && field === 'rhs') frame.nsName = slotName(cursor);
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  }

  private peekCallee(frame: Frame): void {
    const cursor = this.cursor;
    if (!cursor.gotoFirstChild()) return;
    if (cursor.currentFieldName === 'function') {
      if (cursor.nodeType === NodeKind.namespaceOperator) {
        const inner = this.scratch;
        inner.type = NodeKind.namespaceOperator;
        inner.calleePackage = '';
        inner.nsName = '';
        this.peekOperator(inner);
        frame.callee = inner.nsName;
        frame.calleePackage = inner.calleePackage;
      } else frame.callee = slotName(cursor);
    }
    cursor.gotoParent();
  }
}

/**
 * Walks the whole tree once; `shouldStop` lets the caller bound the number of findings and
 * `bindPosition` hands the caller the current node's position for findings without one.
 */
export function walkTree(
  tree: Tree,
  dispatch: Dispatch,
  findings: Findings,
  shouldStop: () => boolean,
  bindPosition: (here: () => Point) => void,
): void {
  const cursor = tree.walk();
  bindPosition(() => cursor.startPosition);
  try {
    new Walk(cursor, dispatch, findings, shouldStop).run();
  } finally {
    cursor.delete();
  }
}

