/**
 * `jube-r validate FILE|-`: prints the ValidationResult JSON; exit 0 valid, 1 invalid,
 * 2 usage error (no file, an unreadable file, extra arguments).
 */
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import type { Command } from './command.ts';
import { readScript } from './read-script.ts';

const USAGE = 'usage: jube-r validate FILE|-   (- reads the script from stdin)';

const command: Command = async (args) => {
  if (args.length !== 1 || args[0] === undefined || args[0] === '') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const source = args[0];
  let script: string;
  try {
    script = await readScript(source);
  } catch (cause) {
    process.stderr.write(`jube-r validate: cannot read ${source}: ${cause instanceof Error ? cause.message : String(cause)}\n`);
    return 2;
  }
  const validate = await loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
  const result = validate(script);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return result.valid ? 0 : 1;
};
export default command;
