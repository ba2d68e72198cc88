import type { Command } from './main.ts';

// Placeholder until the serve command lands.
const command: Command = async () => {
  process.stderr.write('jube-r serve: not implemented yet\n');
  return 2;
};
export default command;
