// A reporter for Node's test runner that scripts/run-tests.mjs reads beside the spec reporter: one JSON
// line per finished file (as it finishes, for the progress lines), per finished test (for the slowest
// ten) and per figure of the runner's closing summary (for the combined closing line).
export default async function* times(source) {
  for await (const { type, data } of source) {
    if (type === 'test:complete' && data.nesting === 0 && data.name === data.file) {
      // A file, run in its own process: how long it took, from the runner's start of the process to its end.
      yield JSON.stringify({ kind: 'file', file: data.file, ms: data.details.duration_ms, ok: data.details.passed }) + '\n';
    } else if ((type === 'test:pass' || type === 'test:fail') && data.file && data.name !== data.file) {
      yield JSON.stringify({ kind: 'test', file: data.file, name: data.name, nesting: data.nesting, ms: data.details.duration_ms, ok: type === 'test:pass' }) + '\n';
    } else if (type === 'test:fail' && data.name === data.file) {
      // A file that failed outside any test (it did not load, or its process crashed).
      yield JSON.stringify({ kind: 'test', file: data.file, name: '(the file itself)', nesting: 0, ms: data.details.duration_ms, ok: false }) + '\n';
    } else if (type === 'test:diagnostic' && !data.file && data.nesting === 0) {
      const m = /^(tests|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/.exec(data.message);
      if (m) yield JSON.stringify({ kind: 'summary', key: m[1], value: Number(m[2]) }) + '\n';
    }
  }
}
