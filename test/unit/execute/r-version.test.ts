/** r-version.ts: the R version responses report is the manifest's, checked by shape, or "unknown". */
import { describe, expect, it } from 'vitest';
import { serviceRVersion } from '../../../functions/execute/r-version.ts';

describe('serviceRVersion', () => {
  it.each([
    [{ rVersion: '4.5.1' }, '4.5.1'],
    [{ rVersion: '4.5' }, 'unknown'],
    [{ rVersion: 'x'.repeat(6_000_000) }, 'unknown'],
    [{ rVersion: '4.5.1\n<script>' }, 'unknown'],
    [undefined, 'unknown'],
  ])('%j -> %s', (manifest, expected) => expect(serviceRVersion(manifest)).toBe(expected));
});
