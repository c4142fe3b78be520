#!/usr/bin/env node
// The headless command line: the same experiments as the app, without a window.
import { pathToFileURL } from 'node:url';
import { LIMITS_USAGE, nearest, processIO, UsageError, type CliIO, type Command } from './io.js';

interface Entry {
  name: string;
  summary: string;
  /** The command's module, imported only when it runs: start-up loads no SSH, database or schema code. */
  load(): Promise<Command>;
}

/** Commands by name. Each module owns its options, help text and exit codes. */
const COMMANDS: Entry[] = [
  { name: 'new', summary: 'write a new experiment file from a template: dbt3 (with --sf), oltp_read_only, oltp_point_select or quickstart', load: async () => (await import('./commands/new.js')).newCommand },
  { name: 'validate', summary: 'check an experiment file against the schema and the tunable catalog', load: async () => (await import('./commands/validate.js')).validate },
  { name: 'plan', summary: 'print the ordered run plan of an experiment', load: async () => (await import('./commands/plan.js')).plan },
  { name: 'probe', summary: 'describe a target host: CPUs, NUMA, ASLR, governor, THP, mysqld, tools', load: async () => (await import('./commands/probe.js')).probe },
  { name: 'sandbox', summary: 'make a throwaway mysqld on a target; start it with tunables and see them verified', load: async () => (await import('./commands/sandbox.js')).sandbox },
  { name: 'run', summary: 'run an experiment on its target; results are saved into the file (resumes an unfinished run)', load: async () => (await import('./commands/run.js')).run },
  { name: 'attach', summary: 'follow a run started with run --detach and bring its results into the file', load: async () => (await import('./commands/detached.js')).attach },
  { name: 'status', summary: 'one line: is the detached run of a file running, finished or failed, and where', load: async () => (await import('./commands/detached.js')).status },
  { name: 'cancel', summary: 'stop the detached run of a file on its target (the host is restored there)', load: async () => (await import('./commands/detached.js')).cancel },
  { name: 'analyze', summary: 'within- and between-restart spread, detectable effect, bimodal starts, comparisons', load: async () => (await import('./commands/analyze.js')).analyze },
  { name: 'export', summary: 'write results as CSV, PNG/SVG plots and a Markdown report', load: async () => (await import('./commands/export.js')).exportCommand },
  { name: 'compare', summary: 'compare two or more experiment files with the same queries', load: async () => (await import('./commands/compare.js')).compareCommand },
];

function help(io: CliIO) {
  io.out('varlab: benchmark MySQL and MariaDB across server restarts, and know whether a 1% change is real.\n');
  io.out('Usage: varlab <command> [options]\n');
  for (const c of COMMANDS) io.out(`  ${c.name.padEnd(10)} ${c.summary}`);
  io.out(`\nEvery command that reads an experiment file also takes:\n  ${LIMITS_USAGE}`);
  io.out('\nRun `varlab <command> --help` for the options of a command.');
}

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    help(io);
    return name ? 0 : 2;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    const meant = nearest(name, COMMANDS.map((c) => c.name));
    io.err(`varlab: unknown command "${name}"${meant ? `; did you mean ${meant}?` : '.'} Commands: ${COMMANDS.map((c) => c.name).join(', ')}`);
    return 2;
  }
  try {
    const command = await entry.load();
    if (rest.includes('--help') || rest.includes('-h')) {
      io.out(command.usage);
      return 0;
    }
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
  // `npm run varlab -- FILE` (with --prefix, from anywhere) runs in the package's folder: a relative FILE
  // is the user's, from the folder npm was started in (INIT_CWD), as an installed varlab reads it.
  if (process.env.npm_lifecycle_event === 'varlab' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  // `varlab plan FILE | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
