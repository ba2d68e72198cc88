/**
 * The layout tells the truth about the architecture: every relative import in the repository is
 * read (static, type-only, re-exports and literal dynamic imports) and the graph checked for the
 * boundaries the README's layout table draws and for cycles; the table itself is checked against
 * the tree, and the names with one owner (runner workdir files, sandbox layers) against every
 * source outside test/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RUNNER_FILES } from '../../layers/contract/runner.ts';
import { OUTPUT_CAP_KEYS } from '../../layers/contract/output-caps.ts';
import * as sandboxLayerNames from '../../layers/contract/sandbox-layers.ts';

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

  it('functions/execute uses nothing of functions/api', () => {
    expect(edges.filter((e) => under(e.from, 'functions/execute') && under(e.to, 'functions/api'))).toEqual([]);
  });

  /**
   * The tools (local stack, CLI, client) are not Lambdas; they reach a function only through its
   * factory (which reads nothing when imported) or its entry (which creates the Lambda's handler).
   */
  const PUBLISHED = new Set([
    'functions/api/create-api.ts',
    'functions/api/handler.ts',
    'functions/execute/create-handler.ts',
    'functions/execute/handler.ts',
    // The process-group kill is a process utility: the local runtime ends its own R trees with it.
    'functions/execute/run/process-group.ts',
  ]);
  it('functions/tools reaches functions/api and functions/execute only through their published modules', () => {
    const reaching = edges.filter(
      (e) => under(e.from, 'functions/tools') && (under(e.to, 'functions/api') || under(e.to, 'functions/execute')) && !PUBLISHED.has(e.to),
    );
    expect(reaching).toEqual([]);
  });

  it('each entry module only creates its handler from its factory', () => {
    for (const [entry, factory] of [
      ['functions/execute/handler.ts', 'functions/execute/create-handler.ts'],
      ['functions/api/handler.ts', 'functions/api/create-api.ts'],
    ] as const) {
      expect(graph.get(entry)).toEqual([factory]);
      const code = readFileSync(join(root, entry), 'utf8').replace(/\/\*\*[\s\S]*?\*\/\n/, '').trim().split('\n').filter(Boolean);
      expect(code, entry).toHaveLength(2);
    }
  });

  it('imports no entry module from source: the local runtime creates its handler from the factory, with its own configuration', () => {
    const entries = ['functions/execute/handler.ts', 'functions/api/handler.ts'];
    const importers = edges.filter((e) => entries.includes(e.to) && !under(e.from, 'test')).map((e) => e.from);
    expect(importers).toEqual([]);
    expect(graph.get('functions/tools/local/execute-runtime.ts')).toContain('functions/execute/create-handler.ts');
  });

  it('has no import between infra/ and r-image/ in either direction', () => {
    const crossing = edges.filter(
      (e) => (under(e.from, 'infra') && under(e.to, 'r-image')) || (under(e.from, 'r-image') && under(e.to, 'infra')),
    );
    expect(crossing).toEqual([]);
  });

  it('keeps layers/ (what both functions share) free of imports from functions/', () => {
    expect(edges.filter((e) => under(e.from, 'layers') && under(e.to, 'functions'))).toEqual([]);
  });

  it('lets layers/config use layers/contract and never the reverse', () => {
    expect(graph.get('layers/config/service-config.ts')).toContain('layers/contract/output-caps.ts');
    expect(edges.filter((e) => under(e.from, 'layers/contract') && under(e.to, 'layers/config'))).toEqual([]);
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

/** Every source file outside test/: the TypeScript graph's files and the R runner. */
const nonTestSources = [
  ...[...graph.keys()].filter((file) => !under(file, 'test')),
  ...readdirSync(join(root, 'r-image/runner')).filter((f) => f.endsWith('.R')).map((f) => `r-image/runner/${f}`),
];
const literalsIn = (file: string, names: readonly string[]): string[] => {
  const text = readFileSync(join(root, file), 'utf8');
  // A name as a quoted literal; `Config['rlimits']` is a property key, not a layer's name.
  return names.filter((n) => new RegExp(`(?<!\\[)(['"\`])${n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\1`).test(text));
};

describe('one definition of each name', () => {
  it('spells each runner workdir file only in layers/contract/runner.ts', () => {
    const names = [RUNNER_FILES.script, RUNNER_FILES.input, RUNNER_FILES.envelope, RUNNER_FILES.plotDir];
    const spelled = nonTestSources
      .filter((file) => file !== 'layers/contract/runner.ts')
      .flatMap((file) => literalsIn(file, names).map((n) => `${file}: ${n}`));
    expect(spelled).toEqual([]);
  });

  it('lists the output caps only in layers/contract/output-caps.ts (and maps them from the environment in service-config.ts)', () => {
    const owners = new Set(['layers/contract/output-caps.ts', 'layers/config/service-config.ts']);
    // Keys no response field shares (`warnings` and `notes` are fields as well as caps).
    const capOnly = OUTPUT_CAP_KEYS.filter((key) => /(?<!consoleOutput)Bytes$|Frames$|Errors$/.test(key));
    const copies = nonTestSources
      .filter((file) => !owners.has(file))
      .flatMap((file) => {
        const text = readFileSync(join(root, file), 'utf8');
        // A key declared (`errorBytes: ...`, `readonly errorBytes`, R's `errorBytes = `) or quoted,
        // not one read (`caps.errorBytes`, `caps$errorBytes`, `maxErrorBytes:`).
        const declared = capOnly.filter((key) => new RegExp(`(?<![.$\\w])${key}\\??\\s*[:=](?!=)|(['"\`])${key}\\1`).test(text));
        // One key is a field being filled; a list of them is a copy of the caps.
        return declared.length >= 3 ? [`${file}: ${declared.join(', ')}`] : [];
      });
    expect(capOnly.length).toBeGreaterThan(8);
    expect(copies).toEqual([]);
  });

  const layerNames = [
    ...new Set(
      Object.values(sandboxLayerNames).flatMap((value): string[] =>
        typeof value === 'string' ? [value] : typeof value === 'object' && value !== null ? Object.values(value).filter((v) => typeof v === 'string') : [],
      ),
    ),
  ];

  it('reads every sandbox layer name from layers/contract/sandbox-layers.ts', () => {
    expect(layerNames.length).toBeGreaterThan(20);
    expect(layerNames).toContain('capsule-preload');
  });

  it('spells a sandbox layer name only in layers/contract/sandbox-layers.ts', () => {
    const spelled = nonTestSources
      .filter((file) => file !== 'layers/contract/sandbox-layers.ts')
      .flatMap((file) => literalsIn(file, layerNames).map((n) => `${file}: ${n}`));
    expect(spelled).toEqual([]);
  });
});

describe("the README's layout table", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Where things are'), readme.indexOf('\nDocs:'));
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  const listed = rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  const dirs = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !SKIP.has(e.name) && !e.name.startsWith('.') && e.name !== 'build')
      .map((e) => (dir === '.' ? `${e.name}/` : `${dir}/${e.name}/`));

  it('names only paths that exist', () => {
    expect(listed.length).toBeGreaterThan(8);
    expect(listed.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it('has a row for every top-level folder and every folder of functions/', () => {
    expect(dirs('.').filter((dir) => !listed.some((path) => path.startsWith(dir)))).toEqual([]);
    expect(dirs('functions').filter((dir) => !listed.includes(dir))).toEqual([]);
  });

  it('names every subfolder of functions/execute and functions/tools in their rows, and nothing else', () => {
    for (const dir of ['functions/execute', 'functions/tools']) {
      const row = rows.find((r) => r.startsWith(`| \`${dir}/\``))!;
      const named = [...row.split('|')[2]!.matchAll(/`([a-z-]+)\/`/g)].map((m) => `${dir}/${m[1]}/`).sort();
      expect(named, dir).toEqual(dirs(dir).sort());
    }
  });
});
