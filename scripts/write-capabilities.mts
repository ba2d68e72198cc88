// Writes r-image/capsule/capabilities.gen.h from layers/rules/capabilities.json, the capability
// table's one source:   node --import tsx scripts/write-capabilities.mts
// test/unit/rules/capabilities.test.ts fails while the committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { capabilitiesHeader } from '../layers/rules/capabilities.ts';

writeFileSync(fileURLToPath(new URL('../r-image/capsule/capabilities.gen.h', import.meta.url)), capabilitiesHeader());
