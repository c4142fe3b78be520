// Export formats: CSV and Markdown, pure functions of an experiment and its analysis.
export * from './context.js';
export * from './csv.js';
export * from './markdown.js';
export * from './compare.js';
export * from './format.js';
export * from './analysis-output.js';
