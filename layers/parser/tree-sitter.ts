/**
 * The tree-sitter-r grammar, loaded once per process (WASM: no native build, no CPU-architecture
 * coupling in Lambda). Both Lambdas parse with it: the validate function to validate, the
 * execute function to cross-check R's own parser (PARSER_DISAGREEMENT).
 *
 * Asset locations can be overridden for bundles that ship the .wasm files beside their code:
 * JUBE_R_TREE_SITTER_WASM (web-tree-sitter's runtime) and JUBE_R_GRAMMAR_WASM (tree-sitter-r).
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Language, Parser } from 'web-tree-sitter';

const require = createRequire(import.meta.url);

/** A file shipped beside the running module (a bundle) wins over node_modules. */
function locate(envKey: string, fileName: string, packagePath: string): string {
  const fromEnv = process.env[envKey];
  if (fromEnv) return fromEnv;
  const beside = join(dirname(fileURLToPath(import.meta.url)), fileName);
  if (existsSync(beside)) return beside;
  return require.resolve(packagePath);
}

export const treeSitterWasmPath = (): string =>
  locate('JUBE_R_TREE_SITTER_WASM', 'web-tree-sitter.wasm', 'web-tree-sitter/web-tree-sitter.wasm');
export const grammarWasmPath = (): string =>
  locate('JUBE_R_GRAMMAR_WASM', 'tree-sitter-r.wasm', '@davisvaughan/tree-sitter-r/tree-sitter-r.wasm');

let loading: Promise<Parser> | undefined;

/** The shared parser; the first call loads the WASM runtime and grammar, later calls reuse them. */
export function getParser(): Promise<Parser> {
  loading ??= (async () => {
    const runtime = treeSitterWasmPath();
    await Parser.init({ locateFile: () => runtime });
    const language = await Language.load(grammarWasmPath());
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return loading;
}
