/**
 * The layout tells the truth about the architecture: every relative import in the repository is
 * read (static, type-only, re-exports and literal dynamic imports) and the graph checked for the
 * boundaries the README's layout table draws and for cycles.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = new Set(['node_modules', 'cdk.out', 'staged', '.git', 'coverage']);
const SOURCE = /\.(ts|mts|mjs)$/;
const SPECIFIERS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\bimport\s+['"]([^'"]+)['"]/g,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (SKIP.has(entry) || entry.startsWith('.')) return [];
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return SOURCE.test(entry) ? [relative(root, path)] : [];
  });
}

/** file -> the repository files it imports (relative specifiers only; packages are not edges). */
const graph = new Map<string, string[]>(
  sourceFiles(root).map((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = SPECIFIERS.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]!))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => relative(root, resolve(root, dirname(file), spec)))
      .filter((target) => existsSync(join(root, target)) && statSync(join(root, target)).isFile());
    return [file, [...new Set(targets)]];
  }),
);
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));
const under = (path: string, dir: string): boolean => path.startsWith(`${dir}/`);

describe('the import graph', () => {
  it('is read (the walk finds the modules it should)', () => {
    expect(graph.get('functions/execute/create-handler.ts')).toContain('layers/validator/validator.ts');
    expect(edges.length).toBeGreaterThan(300);
  });

  it.each(['functions/execute', 'functions/tools/local', 'functions/tools/cli'])(
    '%s uses nothing of functions/api but its handler entry',
    (dir) => {
      const reaching = edges.filter((e) => under(e.from, dir) && under(e.to, 'functions/api') && e.to !== 'functions/api/create-api.ts');
      expect(reaching).toEqual([]);
    },
  );

  it('has no import between infra/ and r-image/ in either direction', () => {
    const crossing = edges.filter(
      (e) => (under(e.from, 'infra') && under(e.to, 'r-image')) || (under(e.from, 'r-image') && under(e.to, 'infra')),
    );
    expect(crossing).toEqual([]);
  });

  it('keeps layers/ (what both functions share) free of imports from functions/', () => {
    expect(edges.filter((e) => under(e.from, 'layers') && under(e.to, 'functions'))).toEqual([]);
  });

  it('has no cycle', () => {
    const cycles: string[][] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles.map((cycle) => cycle.join(' -> '))).toEqual([]);
  });
});
