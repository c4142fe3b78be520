// Consent given anywhere in the app (the Run view's "Allow … and run", the banner's Allow) is
// counted here, so every list of what a file would run checks again and goes once it is allowed:
// the banner above every view no longer asks for what the Run view was just allowed.
import { create } from 'zustand';

export const useTrustGrants = create<{ count: number }>(() => ({ count: 0 }));

/** A consent was recorded: the lists on screen check again. */
export function trustGranted(): void {
  useTrustGrants.setState((s) => ({ count: s.count + 1 }));
}
