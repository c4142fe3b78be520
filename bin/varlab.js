#!/usr/bin/env node
// Installed entry point: the bundled CLI built by `npm run build`.
// `varlab plan FILE | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
});
import('../dist/cli.js').then((m) => m.main(process.argv.slice(2))).then((code) => {
  process.exitCode = code;
});
