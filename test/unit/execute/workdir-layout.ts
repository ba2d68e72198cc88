/** A workdir layout for tests that only need its paths (nothing is created on disk). */
import type { WorkdirLayout } from '../../../functions/execute/run/workdir.ts';

export const layout: WorkdirLayout = {
  root: '/tmp/jube-r-x',
  script: '/tmp/jube-r-x/script.R',
  input: '/tmp/jube-r-x/input.json',
  envelope: '/tmp/jube-r-x/envelope.json',
  dataDir: '/tmp/jube-r-x/data',
  outDir: '/tmp/jube-r-x/out',
  plotDir: '/tmp/jube-r-x/.jube/plots',
  home: '/tmp/jube-r-x/home',
  tmp: '/tmp/jube-r-x/tmp',
  noLibrary: '/tmp/jube-r-x/no-user-library',
  emptyFile: '/tmp/jube-r-x/empty',
};
