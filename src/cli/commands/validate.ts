import { readExperimentFile } from '../../node/files.js';
import { parse, UsageError, type Command } from '../io.js';

export const validate: Command = {
  name: 'validate',
  usage: 'varlab validate FILE\n\nExit 0 when FILE is a valid experiment (older versions are migrated in memory, not on disk),\nexit 2 with one line per problem, each naming its JSON path.',
  async run(argv, io) {
    const { positionals } = parse(argv, {});
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const file = positionals[0];
    const r = await readExperimentFile(file);
    if (!r.doc) {
      for (const p of r.problems) io.err(`${file}: ${p}`);
      return 2;
    }
    for (const n of r.notices) io.out(`${file}: ${n}`);
    io.out(`${file}: valid (${r.doc.name})`);
    return 0;
  },
};
