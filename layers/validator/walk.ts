/**
 * The static walk over a tree-sitter tree with one TreeCursor (no recursion: depth costs heap,
 * not stack). Each level of the path from the root gets a frame annotated with what the checks
 * need (operator, callee, argument name), computed from
 * the node's own children so a frame is correct however the cursor arrived at it.
 *
 * Two drivers share that annotation:
 * - `walkTree` visits every node (the reference; tests prove the fast driver equivalent to it);
 * - `walkCandidates` visits only the tokens a lexical pre-scan found interesting, stepping the
 *   cursor forward through the tree in document order. Crossing into the WASM tree costs far more
 *   per node than scanning text in JS, and almost every node of a real script is uninteresting.
 */
import type { Node, Point, Tree, TreeCursor } from 'web-tree-sitter';
import { NodeKind, SPECIAL, newFrame } from './context.ts';
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
  private readonly scratch: Frame = newFrame();
  private stopped = false;

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

  /** Every node, in document order. */
  runAll(): void {
    const cursor = this.cursor;
    for (;;) {
      if (cursor.nodeIsNamed) {
        const frame = this.enter();
        this.visitAt(frame);
        if (this.stopped) return;
      }
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

  /** Only the tokens starting at `indices` (ascending, UTF-16 offsets), with the nodes they stand for. */
  runCandidates(indices: readonly number[]): void {
    const cursor = this.cursor;
    this.enter();
    for (const index of indices) {
      if (!this.advanceTo(index)) return;
      if (cursor.startIndex !== index) continue;
      const type = cursor.nodeType;
      if (type === NodeKind.identifier || type === NodeKind.string) {
        this.visitAt(this.frames[this.depth]!);
        const up = this.callOf();
        if (up > 0) {
          // The callee of a call: the call-level checks (loaders, options(), dispatch, replacement) see the call.
          for (let i = 0; i < up; i += 1) {
            cursor.gotoParent();
            this.depth -= 1;
          }
          this.visitAt(this.frames[this.depth]!);
        }
      } else if (!cursor.nodeIsNamed && cursor.currentFieldName === 'operator') {
        cursor.gotoParent();
        this.depth -= 1;
        this.visitAt(this.frames[this.depth]!);
      }
      if (this.stopped) return;
    }
  }

  /** 1 or 2 when the visited name is the function of a call (directly, or as pkg::name), else 0. */
  private callOf(): number {
    const parent = this.frames[this.depth - 1];
    const field = this.frames[this.depth]?.field;
    if (!parent) return 0;
    if (parent.type === NodeKind.call && field === 'function') return 1;
    if (parent.type === NodeKind.namespaceOperator && field === 'rhs' && parent.field === 'function') {
      return this.frames[this.depth - 2]?.type === NodeKind.call ? 2 : 0;
    }
    return 0;
  }

  /** Moves forward to the deepest node that starts a token at `index`; false when the tree is exhausted. */
  private advanceTo(index: number): boolean {
    const cursor = this.cursor;
    while (cursor.endIndex <= index) {
      if (cursor.gotoNextSibling()) continue;
      if (!cursor.gotoParent()) return false;
      this.depth -= 1;
    }
    if (cursor.startIndex > index) return true;
    if (cursor.nodeIsNamed) this.enter();
    for (;;) {
      const type = cursor.nodeType;
      if (cursor.startIndex === index && (type === NodeKind.identifier || type === NodeKind.string)) return true;
      if (!cursor.gotoFirstChildForIndex(index)) return true;
      this.depth += 1;
      if (cursor.startIndex > index) return true;
      if (cursor.nodeIsNamed) this.enter();
    }
  }

  private visitAt(frame: Frame): void {
    const visitors = this.dispatch.get(frame.type);
    if (!visitors) return;
    this.type = frame.type;
    this.field = frame.field;
    this.frame = frame;
    for (const visit of visitors) visit(this, this.findings);
    if (this.shouldStop()) this.stopped = true;
  }

  /** Annotates the frame of the cursor's (named) node from its parent frame and its own children. */
  private enter(): Frame {
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

    if (OPERATOR_KINDS.has(type)) this.peekOperator(frame);
    else if (type === NodeKind.call) this.peekCallee(frame);
    else if (type === NodeKind.argument) this.peekArgumentName(frame);
    return frame;
  }

  private peekArgumentName(frame: Frame): void {
    const cursor = this.cursor;
    if (!cursor.gotoFirstChild()) return;
    if (cursor.currentFieldName === 'name') frame.argName = slotName(cursor);
    cursor.gotoParent();
  }

  private peekOperator(frame: Frame): void {
    const cursor = this.cursor;
    if (!cursor.gotoFirstChild()) return;
    const namespace = frame.type === NodeKind.namespaceOperator;
    do {
      const field = cursor.currentFieldName;
      if (field === 'operator') {
        // `%>%`, `%%` and other specials share the node kind 'special'; their text tells them apart.
        frame.op = cursor.nodeType === SPECIAL ? cursor.nodeText : cursor.nodeType;
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

export interface WalkOptions {
  readonly dispatch: Dispatch;
  readonly findings: Findings;
  /** Lets the caller bound the number of findings. */
  readonly shouldStop: () => boolean;
  /** Receives the current node's position, for findings reported without one. */
  readonly bindPosition: (here: () => Point) => void;
}

function withCursor(tree: Tree, options: WalkOptions, run: (walk: Walk) => void): void {
  const cursor = tree.walk();
  options.bindPosition(() => cursor.startPosition);
  try {
    run(new Walk(cursor, options.dispatch, options.findings, options.shouldStop));
  } finally {
    cursor.delete();
  }
}

/** Visits every node once (reference driver). */
export function walkTree(tree: Tree, options: WalkOptions): void {
  withCursor(tree, options, (walk) => walk.runAll());
}

/** Visits the nodes at the candidate token offsets (see candidates.ts), in one forward pass. */
export function walkCandidates(tree: Tree, indices: readonly number[], options: WalkOptions): void {
  withCursor(tree, options, (walk) => walk.runCandidates(indices));
}
