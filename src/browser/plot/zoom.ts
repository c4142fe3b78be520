// What a reader's zoom, pan or double-click says, read from a Plotly relayout event: one reading for
// every plot that draws itself again for the range shown (the query plot, the executions in order,
// the live timeline). Plotly names a zoomed axis as 'xaxis.range[0]' and 'xaxis.range[1]'; a box zoom
// or a pan names both axes, a drag along one axis names that one; a double-click back to the whole
// range is said as 'xaxis.autorange' (Plot.tsx says a double-click so whatever Plotly names).

export type Range = [number, number];

/** The axes a relayout zoomed or panned to, each when it names it; whole: back to the whole range. */
export interface Relayout {
  x?: Range;
  y?: Range;
  whole: boolean;
}

/** The relayout's ranges, or null when it is neither a zoom nor a pan nor a return to the whole range (a resize, a hover mode). */
export function relayoutOf(e: Record<string, unknown>): Relayout | null {
  const range = (axis: 'xaxis' | 'yaxis'): Range | undefined => {
    const a = e[`${axis}.range[0]`];
    const b = e[`${axis}.range[1]`];
    return typeof a === 'number' && typeof b === 'number' ? [a, b] : undefined;
  };
  const x = range('xaxis');
  const y = range('yaxis');
  const whole = e['xaxis.autorange'] === true || e['yaxis.autorange'] === true;
  if (!x && !y && !whole) return null;
  return { ...(x ? { x } : {}), ...(y ? { y } : {}), whole: whole && !x && !y };
}
