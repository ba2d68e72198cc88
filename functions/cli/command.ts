/** A `jube-r` subcommand: its arguments in, the process exit code out (0 ok, 1 failed, 2 usage). */
export type Command = (args: string[]) => Promise<number>;
