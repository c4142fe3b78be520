// The browser half of issue 15.5, in Chromium: Run-view frame times (p50, p95) while 100k points
// stream in, and the Analysis view's first render, hover p95 and zoom p95 at 100k executions.
// Not measured yet: they come with the live-view and Analysis-view work of issue 15 points 1-2.
// Put them here, printed like scripts/bench/commands.ts (whole interactions, medians, no assertions).
export async function bench(): Promise<void> {
  console.log('Run view frame times and Analysis view timings: not measured yet (issue 15 points 1-2).');
}
