/**
 * What the two esbuild bundles (the validate function's, and the execute handler staged into the
 * r-image) have in common, so neither can drift from the other. Pure constants.
 */

/** ESM output still meets CommonJS dependencies that call require(); give them one. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __jubeCreateRequire } from 'node:module'; const require = __jubeCreateRequire(import.meta.url);";
