// The host layer as the run engine, the API and the CLI see it.
export type { ExecResult, OpenTargetOptions, Prompter, ServerControl, StartedServer, TargetSession } from './types.js';
export { openTarget } from './target.js';
export { shellQuote, shellJoin } from './shell.js';
export { probeHost, formatFingerprint } from './probe.js';
export { createServerControl, type ServerControlOptions } from './server.js';
export { planCommands, restartSteps, systemdDropIn, type PlanOptions } from './commands.js';
export { preloadSchemas, type PreloadReport } from './tunables/index.js';
export { DEFAULT_RESTORE_RECORD, offerRestore, readRestoreRecord, restoreHost } from './restore.js';
export { sandboxProfile, readProfiles, registerProfile, unregisterProfile, profilesPath, type RegisteredProfile } from './profiles.js';
export { createSandbox, planSandbox, removeSandbox, type SandboxOptions } from './sandbox.js';
