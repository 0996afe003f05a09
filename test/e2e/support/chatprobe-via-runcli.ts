// chatprobe as a command for action/run.sh (its CHATPROBE_CMD): the tests' runCli, run in this process's
// working directory and environment, so the action runs the CLI the way every other e2e test does.
import { runCli } from '../../helpers/cli.js';

const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
const run = await runCli(process.argv.slice(2), env, process.cwd());
process.stdout.write(run.stdout);
process.stderr.write(run.stderr);
process.exitCode = run.code ?? 1;
