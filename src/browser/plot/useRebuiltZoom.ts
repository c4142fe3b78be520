// A plot whose figure is built again for the range a reader zooms to (what it draws or says depends on
// the range): the zoom it is built for, kept per `key` (a new query or cell starts at the whole range),
// and a count of the zooms on screen in their final form, so a test or a benchmark can tell when one is.
import { useCallback, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { relayoutOf } from './zoom.js';

export function useRebuiltZoom<Z>(key: string) {
  const [state, setState] = useState<{ key: string; zoom: Z | null }>({ key, zoom: null });
  const [zoomsShown, setZoomsShown] = useState(0);
  const rebuilding = useRef(false);
  return {
    /** The zoom the figure is to be built for; null: the whole range. */
    zoom: state.key === key ? state.zoom : null,
    zoomsShown,
    /**
     * Build the figure again for `next` (null: the whole range). Returns true, for a takeRelayout: Plotly
     * leaves the relayout (it would draw the old figure at the new range first).
     */
    rebuild(next: Z | null): true {
      rebuilding.current = true;
      // Once Plotly's drag has ended, in the same task: the next frame shows the new figure.
      queueMicrotask(() => flushSync(() => setState({ key, zoom: next })));
      return true;
    },
    /** For the plot's onRelayout: Plotly drew a zoom that was not rebuilt, which is then final. */
    onRelayout: (e: Record<string, unknown>) => {
      if (relayoutOf(e)) setZoomsShown((n) => n + 1);
    },
    /** For the plot's onReady / onDrawn: a rebuilt figure is on screen. */
    onDrawn: useCallback(() => {
      if (!rebuilding.current) return;
      rebuilding.current = false;
      setZoomsShown((n) => n + 1);
    }, []),
  };
}
