import { describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../../layers/config/service-config.ts';
import {
  EXECUTE_HANDLER_RESERVE_MIB,
  MIN_EXECUTE_MEMORY_MIB,
  rAddressSpaceLimitBytes,
} from '../../../infra/lib/execute-memory.ts';

const MIB = 1024 * 1024;

describe('rAddressSpaceLimitBytes', () => {
  it.each([
    [2048, 1664 * MIB],
    [3008, 2624 * MIB],
    [4096, 3712 * MIB],
    [10_240, 9856 * MIB],
  ])('leaves the handler its reserve out of %i MiB', (memoryMiB, expected) => {
    // Act
    const bytes = rAddressSpaceLimitBytes(memoryMiB);

    // Assess
    expect(bytes).toBe(expected);
    expect(memoryMiB * MIB - bytes).toBe(EXECUTE_HANDLER_RESERVE_MIB * MIB);
  });

  it('gives the smallest allowed memory a limit the execute handler\'s own config reader accepts', () => {
    const bytes = rAddressSpaceLimitBytes(MIN_EXECUTE_MEMORY_MIB);
    expect(readServiceConfig({ JUBE_R_RLIMIT_AS_BYTES: String(bytes) }).rlimits.addressSpaceBytes).toBe(bytes);
  });

  it.each([MIN_EXECUTE_MEMORY_MIB - 1, 128, 1024.5, Number.NaN])('refuses %s MiB, which leaves R too little', (memoryMiB) => {
    expect(() => rAddressSpaceLimitBytes(memoryMiB)).toThrowError(/execute memory must be a whole number of MiB >= 640/);
  });
});
