// The statistics engine: tidy data in, the analysis of issue 5 out. Pure TypeScript, so the CLI runs it
// in Node and the UI runs it in a worker.
export * from './tidy.js';
export * from './analysis.js';
export * from './planner.js';
export * from './bimodal.js';
export * from './warmup.js';
