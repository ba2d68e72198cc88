/**
 * What the two esbuild bundles (the validate function's, and the execute handler staged into the
 * r-image) have in common, so neither can drift from the other. Pure constants.
 */

/** ESM output still meets CommonJS dependencies that call require(); give them one. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __jubeCreateRequire } from 'node:module'; const require = __jubeCreateRequire(import.meta.url);";

/**
 * The tree-sitter runtime and R grammar, repository-relative. Both bundles ship them as data
 * files (layers/parser/tree-sitter.ts finds them beside the bundle or through JUBE_R_*_WASM).
 */
export const TREE_SITTER_WASM_FILES = [
  'node_modules/web-tree-sitter/web-tree-sitter.wasm',
  'node_modules/@davisvaughan/tree-sitter-r/tree-sitter-r.wasm',
] as const;
