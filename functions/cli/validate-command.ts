import type { Command } from './main.ts';

// Placeholder until the validate command lands.
const command: Command = async () => {
  process.stderr.write('jube-r validate: not implemented yet\n');
  return 2;
};
export default command;
