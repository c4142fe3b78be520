// The host layer as the run engine, the API and the CLI see it.
export type { ExecResult, OpenTargetOptions, Prompter, RunHooks, ServerControl, StartedServer, TargetSession } from './types.js';
export { openTarget } from './target.js';
export { shellQuote, shellJoin } from './shell.js';
export { probeHost, formatFingerprint } from './probe.js';
export { createServerControl, type ServerControlOptions } from './server.js';
export { DEFAULT_HOST_PATHS, formatScript, systemdDropIn, type HostPaths, type Script } from './script.js';
export { dryRunCells, procedureText } from './dryrun.js';
export { preloadSchemas, type PreloadReport } from './preload.js';
export { offerRestore, profileDir, profileId, readRestoreRecords, restoreHost } from './restore.js';
export { sandboxProfile, readProfiles, registerProfile, unregisterProfile, profilesPath, type RegisteredProfile } from './profiles.js';
export { createSandbox, holdingRunLock, planSandbox, removeSandbox, type SandboxOptions, type SandboxResult } from './sandbox.js';
export { addBuilds, removeBuild, type BuildsChanged } from './sandbox-builds.js';
