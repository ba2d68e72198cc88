/**
 * The handler with the capsule required: every run reports it armed, and a capsule that cannot arm
 * stops the run before the script, as the service's failure.
 */
import { describe, expect, it } from 'vitest';
import { readContainment } from '../../../functions/execute/run/containment.ts';
import { acceptEverything, harness } from '../helpers.ts';

describe('the execute handler and the capsule', () => {
  it('arms the capsule in every run and says so in the run report', async () => {
    const h = harness({ validator: acceptEverything });
    const response = await h.run('cat("ran\\n")');
    expect(response).toMatchObject({ status: 'ok', consoleOutput: 'ran\n' });
    expect(h.reports.at(-1)!.capsule).toMatch(/^preload=armed /);
  });

  it('runs no script when what it preloads is not the capsule', async () => {
    // Prepare: a shared object that loads fine but has no arming entry point.
    const capsule = readContainment().capsule!;
    const { execa } = await import('execa');
    const { stdout: stats } = await execa('Rscript', ['--vanilla', '-e', 'cat(file.path(find.package("stats"), "libs", "stats.so"))']);
    const h = harness({ validator: acceptEverything, containment: { capsule: { ...capsule, library: stats } } });
    // Act
    const response = await h.run('cat("ran\\n")');
    // Assess
    expect(response).toMatchObject({ status: 'error', errorType: 'interpreter', retryable: false });
    expect(response.consoleOutput).not.toContain('ran');
  });
});
