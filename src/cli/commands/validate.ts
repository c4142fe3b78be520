import { readExperimentFile } from '../../node/files.js';
import { parse, UsageError, type Command } from '../io.js';

export const validate: Command = {
  name: 'validate',
  usage:
    'varlab validate FILE [FILE...]\n\n' +
    'Exit 0 when every FILE is a valid experiment (older versions are migrated in memory, not on disk),\n' +
    'exit 2 when any is not, with one line per problem, each naming the file and its JSON path.',
  async run(argv, io) {
    const { positionals } = parse(argv, {});
    if (positionals.length === 0) throw new UsageError('expected at least one FILE');
    let status = 0;
    // One process for a folder of files (a teammate's batch, a test corpus): each is read and judged on its own.
    for (const file of positionals) {
      const r = await readExperimentFile(file);
      if (!r.doc) {
        for (const p of r.problems) io.err(`${file}: ${p}`);
        status = 2;
        continue;
      }
      for (const n of r.notices) io.out(`${file}: ${n}`);
      io.out(`${file}: valid (${r.doc.name})`);
    }
    return status;
  },
};
