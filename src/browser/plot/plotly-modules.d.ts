// plotly.js ships no types for its per-trace modules; the wrapper types what it uses (plotly.ts).
declare module 'plotly.js/lib/*' {
  const mod: unknown;
  export default mod;
}
declare module 'plotly.js/src/traces/*' {
  const mod: unknown;
  export default mod;
}
declare module 'plotly.js/src/registry' {
  const mod: unknown;
  export default mod;
}
