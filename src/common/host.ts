// What varlab learns about a target host: stored with every result so numbers can be compared honestly.

export interface NumaNode {
  node: number;
  cpus: string;
  memoryMb: number;
}

export interface HostFingerprint {
  target: string;
  probedAt: number;
  hostname: string;
  kernel: string;
  cpuModel: string;
  sockets: number;
  cores: number;
  threads: number;
  numaNodes: NumaNode[];
  /** kernel.randomize_va_space: 0 off, 1 partial, 2 full. */
  aslr: string;
  governor: string | null;
  turbo: string | null;
  thp: string | null;
  mysqld: {
    flavor: 'mysql' | 'mariadb' | 'percona' | 'unknown';
    version: string;
    binary: string;
    datadir: string | null;
    socket: string | null;
    configFile: string | null;
  } | null;
  sudoWithoutPassword: boolean;
  tools: Record<'numactl' | 'taskset' | 'setarch' | 'perf' | 'sysbench', boolean>;
  // Added with the host layer of issue 11 (absent from results probed before it):
  /** `uname -m`: what setarch and a systemd drop-in are given. */
  arch?: string;
  /** The login user and its uid (0 for root). */
  user?: string;
  uid?: number;
  /** Absolute paths of the tools found, for systemd drop-ins (ExecStart does not search PATH). */
  toolPaths?: Partial<Record<'numactl' | 'taskset' | 'setarch' | 'systemctl', string>>;
  /** systemd is PID 1 here (systemctl works). */
  systemd?: boolean;
  /** The allocator libraries found for LD_PRELOAD, or null when not installed. */
  allocators?: { jemalloc: string | null; tcmalloc: string | null };
}
