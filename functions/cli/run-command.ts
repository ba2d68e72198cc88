import type { Command } from './main.ts';

// Placeholder until the run command lands.
const command: Command = async () => {
  process.stderr.write('jube-r run: not implemented yet\n');
  return 2;
};
export default command;
