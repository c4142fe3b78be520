// The host layer as the run engine, the API and the CLI see it.
export type { ExecResult, OpenTargetOptions, Prompter, ServerControl, StartedServer, TargetSession } from './types.js';
export { openTarget } from './target.js';
export { shellQuote, shellJoin } from './shell.js';
export { probeHost, formatFingerprint } from './probe.js';
