import { describe, expect, it } from 'vitest';
import { capabilityMessage } from '../../../../layers/rules/capabilities.ts';
import { errorsOf, validate } from '../support.ts';

describe('check capability-call', () => {
  describe('Noncompliance: a direct call of a capability function', () => {
    it.each([
      ['system("id")', 'system', 'program'],
      ['base::system("id")', 'system', 'program'],
      ['system2("ls")', 'system2', 'program'],
      ['x <- pipe("ls")', 'pipe', 'program'],
      ['utils::download.file("http://x", "f")', 'download.file', 'network'],
      ['download.file("http://x", "f")', 'download.file', 'network'],
      ['con <- url("http://x")', 'url', 'network'],
      ['install.packages("janitor")', 'install.packages', 'network'],
      ['dyn.load("x.so")', 'dyn.load', 'nativeCode'],
      ['.Call("x")', '.Call', 'nativeCode'],
      ['data.table::address(x)', 'address', 'memory'],
      ['tools::pskill(1L)', 'pskill', 'signals'],
      ['parallel::mcparallel(1)', 'mcparallel', 'process'],
    ] as const)('%s is CAPABILITY_NOT_AVAILABLE with the %s category\'s message', async (script, name, category) => {
      const { errors } = await validate(script);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: 'CAPABILITY_NOT_AVAILABLE', symbol: name, line: 1 });
      const written = script.includes('::') ? `${script.split('::')[0]!.split(/[^A-Za-z.]/).at(-1)}::${name}` : name;
      expect(errors[0]!.message).toBe(capabilityMessage(category, written));
    });

    it.each([['parallel::mclapply(1:3, sqrt, mc.cores = 4)', '4'], ['mcmapply(sum, 1:3, mc.cores = 2L)', '2L'], ['pvec(1:3, sqrt, mc.cores = detectCores())', 'detectCores()']])(
      '%s always forks: refused with the process advice, placed on mc.cores',
      async (script, cores) => {
        const { errors } = await validate(script);
        const name = script.replace(/^parallel::/, '').split('(')[0]!;
        expect(errors).toEqual([expect.objectContaining({ code: 'CAPABILITY_NOT_AVAILABLE', symbol: name, message: capabilityMessage('process', `${name}(mc.cores = ${cores})`) })]);
        expect(errors[0]!.column).toBe(script.indexOf('mc.cores') + 1);
      },
    );

    it('Sys.setenv of a name outside the table names what it refuses', async () => {
      const { errors } = await validate('Sys.setenv(FOO = "1", TZ = "UTC")');
      expect(errors).toEqual([expect.objectContaining({ code: 'CAPABILITY_NOT_AVAILABLE', symbol: 'Sys.setenv' })]);
      expect(errors[0]!.message).toMatch(/\(not FOO\)$/);
    });

    it('Sys.unsetenv of a name outside the table, given as a string', async () => {
      expect(await errorsOf('Sys.unsetenv(c("LC_ALL", "PATH"))')).toEqual(['CAPABILITY_NOT_AVAILABLE:Sys.unsetenv']);
    });
  });

  describe('Compliance: names are advice', () => {
    it.each([
      // The time zone and the locale may be set.
      ['Sys.setenv(TZ = "Europe/Paris", LC_TIME = "C")'],
      // Reached another way, the capability is the capsule's to refuse at run time.
      ['f <- get("system")'],
      ['do.call("system", list("id"))'],
      // An element called as a function, or named like one.
      ['x$system("id")'],
      ['list(system = 1)$system'],
      ['Sys.getenv("HOME")'],
      ['readRDS(system.file("Meta", "package.rds", package = "stats"))'],
      // mclapply serial (MC_CORES=1), or a count that may be 1 (advice, capability-advice's).
      ['parallel::mclapply(1:3, sqrt)'],
      ['parallel::mclapply(1:3, sqrt, mc.cores = 1L)'],
      ['parallel::mclapply(1:3, sqrt, mc.cores = n)'],
    ])('accepts %s', async (script) => {
      expect((await validate(script)).errors).toEqual([]);
    });
  });
});
