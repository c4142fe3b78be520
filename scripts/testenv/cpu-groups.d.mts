// Types of cpu-groups.mjs (plain JavaScript: scripts/run-tests.mjs runs without tsx), for the tests.
export declare const CPUACCT: string;
export declare function groupMaker(name: string): number | null;
export declare function removeEndedGroups(root?: string, opts?: { there?: (pid: number) => boolean; now?: number }): string[];
export declare function makeGroup(root?: string, pid?: number): string | null;
export declare function groupCpuSeconds(group: string): number | undefined;
