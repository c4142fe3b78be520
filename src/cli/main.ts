#!/usr/bin/env node
// The headless command line: the same experiments as the app, without a window.
import { pathToFileURL } from 'node:url';
import { processIO, UsageError, type CliIO, type Command } from './io.js';
import { validate } from './commands/validate.js';
import { plan } from './commands/plan.js';
import { probe } from './commands/probe.js';
import { sandbox } from './commands/sandbox.js';
import { run } from './commands/run.js';
import { exportCommand } from './commands/export.js';
import { compareCommand } from './commands/compare.js';
import { analyze } from './commands/analyze.js';

/** Commands by name. Each module owns its options, help text and exit codes. */
const COMMANDS: Command[] = [validate, plan, probe, sandbox, run, analyze, exportCommand, compareCommand];

function help(io: CliIO) {
  io.out('varlab: benchmark MySQL and MariaDB across server restarts, and know whether a 1% change is real.\n');
  io.out('Usage: varlab <command> [options]\n');
  for (const c of COMMANDS) io.out(`  ${c.name.padEnd(10)} ${c.summary}`);
  io.out('\nRun `varlab <command> --help` for the options of a command.');
}

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    help(io);
    return name ? 0 : 2;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`varlab: unknown command "${name}". Commands: ${COMMANDS.map((c) => c.name).join(', ')}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`varlab ${name}: ${e.message}\nRun \`varlab ${name} --help\` for usage.`);
      return 2;
    }
    io.err(`varlab ${name}: ${(e as Error).message}`);
    return 1;
  }
}

// Run when executed directly (tsx src/cli/main.ts); the installed bin imports the bundle and calls main.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `varlab plan FILE | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
