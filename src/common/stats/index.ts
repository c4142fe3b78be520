// The statistics engine: tidy data in, the analysis of issues 5 and 12 out. Pure TypeScript, so the CLI
// runs it in Node and the UI runs it in a worker.
export * from './tidy.js';
export * from './analysis.js';
export * from './planner.js';
export * from './bimodal.js';
export * from './changepoint.js';
export * from './steady.js';
export * from './intervals.js';
export * from './units.js';
export * from './adjust.js';
export * from './evidence.js';
export * from './mde.js';
export * from './ratio.js';
export * from './moments.js';
export * from './hosts.js';
export * from './sequential.js';
export * from './replay.js';
export * from './paired.js';
