/**
 * The tree-sitter runtime and R grammar, repository-relative: the files tree-sitter.ts loads. Both
 * bundles (the validate function's and the execute handler staged into the image) ship them as
 * data files, found beside the bundle or through JUBE_R_*_WASM.
 */
export const TREE_SITTER_WASM_FILES = [
  'node_modules/web-tree-sitter/web-tree-sitter.wasm',
  'node_modules/@davisvaughan/tree-sitter-r/tree-sitter-r.wasm',
] as const;
