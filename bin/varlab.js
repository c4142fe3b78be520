#!/usr/bin/env node
// Installed entry point: the bundled CLI built by `npm run build`.
import('../dist/cli.js').then((m) => m.main(process.argv.slice(2))).then((code) => {
  process.exitCode = code;
});
