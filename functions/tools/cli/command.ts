/** A `jube-r` subcommand: its arguments in, the process exit code out (0 ok, 1 failed, 2 usage). */
export type Command = (args: string[]) => Promise<number>;

/** `-h` and `--help` ask a command for its usage, which it prints to stdout with exit 0. */
export const isHelp = (arg: string | undefined): boolean => arg === '--help' || arg === '-h';
