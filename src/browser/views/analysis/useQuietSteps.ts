// Work the reader does not wait for, done in steps while the reader is not using the page. The
// sections below the query's plot (stability, comparisons, planning) took 0.3-0.9 s to render and lay
// out after the first paint; a pointer moved over the plot in that time waited for them (in Chromium
// at a load of 6-7, the first hover took 130-360 ms against 40-50 ms after). Each step now waits until
// the page has had no input for a moment, and renders as a transition (which React interrupts for
// input) in a task of its own; when the reader scrolls to where the steps' output goes, the rest is
// done at once.
import { startTransition, useEffect, useState, type RefObject } from 'react';

/** How long the page must have had no pointer, wheel or key input before the next step. */
export const QUIET_MS = 300;
const INPUT = ['pointermove', 'pointerdown', 'wheel', 'keydown'] as const;

/**
 * Steps taken so far, 0..count: one at a time, each after QUIET_MS without input (counted from the
 * step before); all of them once `near` (the placeholder for what is still to come) nears the window.
 * Nothing happens until `start`.
 */
export function useQuietSteps(count: number, start: boolean, near: RefObject<HTMLElement | null>): number {
  const [done, setDone] = useState(0);
  useEffect(() => {
    if (!start || done >= count) return;
    let last = performance.now();
    const onInput = () => {
      last = performance.now();
    };
    for (const e of INPUT) window.addEventListener(e, onInput, { capture: true, passive: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const wait = last + QUIET_MS - performance.now();
      if (wait > 0) timer = setTimeout(check, wait);
      else startTransition(() => setDone((n) => Math.min(count, n + 1)));
    };
    // After a frame: the step before is on screen first.
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(check, 0);
    });
    const observer =
      typeof IntersectionObserver === 'undefined' || !near.current
        ? null
        : new IntersectionObserver((entries) => {
            if (entries.some((x) => x.isIntersecting)) startTransition(() => setDone(count));
          }, { rootMargin: '50% 0px' });
    if (observer && near.current) observer.observe(near.current);
    return () => {
      for (const e of INPUT) window.removeEventListener(e, onInput, { capture: true });
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      observer?.disconnect();
    };
  }, [start, done, count, near]);
  return done;
}
