// Plotly figures ({data, layout} JSON) for every plot varlab shows, built from an experiment and its
// analysis. The UI draws them, the render page exports them: the same plot everywhere.
export * from './figure.js';
export * from './build.js';
