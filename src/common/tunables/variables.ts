// Which server variables a `variable` factor may set. A factor's level becomes a mysqld option at
// every start, and a shared file chooses it, so the name decides how much a file can do:
//
//   - known tuning variables (buffers, caches, InnoDB I/O and flushing, optimizer limits…) only
//     change how fast the server is: allowed without asking;
//   - any other variable is shown for consent before the first run on each host;
//   - options that change who the server runs as, who may log in, where it listens, or which files
//     and code it loads (user, init_file, plugin_load_add, skip_grant_tables, port, bind_address,
//     secure_file_priv, *_file, *dir, socket…) are refused outright: no consent makes them a factor.

/** Variables that only tune performance: a factor may set them without consent. */
export const TUNING_VARIABLES: ReadonlySet<string> = new Set([
  'innodb_adaptive_flushing',
  'innodb_adaptive_flushing_lwm',
  'innodb_adaptive_hash_index',
  'innodb_adaptive_hash_index_parts',
  'innodb_autoinc_lock_mode',
  'innodb_buffer_pool_chunk_size',
  'innodb_buffer_pool_dump_at_shutdown',
  'innodb_buffer_pool_dump_pct',
  'innodb_buffer_pool_instances',
  'innodb_buffer_pool_load_at_startup',
  'innodb_buffer_pool_size',
  'innodb_change_buffer_max_size',
  'innodb_change_buffering',
  'innodb_checksum_algorithm',
  'innodb_doublewrite',
  'innodb_fill_factor',
  'innodb_flush_log_at_timeout',
  'innodb_flush_log_at_trx_commit',
  'innodb_flush_method',
  'innodb_flush_neighbors',
  'innodb_flush_sync',
  'innodb_io_capacity',
  'innodb_io_capacity_max',
  'innodb_log_buffer_size',
  'innodb_log_file_size',
  'innodb_log_write_ahead_size',
  'innodb_lru_scan_depth',
  'innodb_max_dirty_pages_pct',
  'innodb_max_dirty_pages_pct_lwm',
  'innodb_numa_interleave',
  'innodb_old_blocks_pct',
  'innodb_old_blocks_time',
  'innodb_open_files',
  'innodb_page_cleaners',
  'innodb_purge_batch_size',
  'innodb_purge_threads',
  'innodb_random_read_ahead',
  'innodb_read_ahead_threshold',
  'innodb_read_io_threads',
  'innodb_sort_buffer_size',
  'innodb_spin_wait_delay',
  'innodb_stats_on_metadata',
  'innodb_stats_persistent',
  'innodb_stats_persistent_sample_pages',
  'innodb_sync_spin_loops',
  'innodb_thread_concurrency',
  'innodb_use_native_aio',
  'innodb_write_io_threads',
  'aria_pagecache_buffer_size',
  'back_log',
  'bulk_insert_buffer_size',
  'eq_range_index_dive_limit',
  'host_cache_size',
  'join_buffer_size',
  'join_cache_level',
  'key_buffer_size',
  'max_allowed_packet',
  'max_connections',
  'max_heap_table_size',
  'myisam_sort_buffer_size',
  'net_buffer_length',
  'open_files_limit',
  'optimizer_prune_level',
  'optimizer_search_depth',
  'optimizer_use_condition_selectivity',
  'performance_schema',
  'query_cache_limit',
  'query_cache_size',
  'query_cache_type',
  'range_alloc_block_size',
  'read_buffer_size',
  'read_rnd_buffer_size',
  'sort_buffer_size',
  'stored_program_cache',
  'sync_binlog',
  'table_definition_cache',
  'table_open_cache',
  'table_open_cache_instances',
  'thread_cache_size',
  'thread_handling',
  'thread_pool_size',
  'thread_stack',
  'tmp_memory_table_size',
  'tmp_table_size',
  'transaction_prealloc_size',
]);

/** Options that change identity, access, listening or files, by exact name. */
const REFUSED_NAMES = new Set([
  'user',
  'port',
  'socket',
  'bind_address',
  'skip_networking',
  'extra_port',
  'chroot',
  'local_infile',
  'log_error',
  'log_bin',
  'log_bin_index',
  'relay_log',
  'relay_log_index',
  'general_log',
  'slow_query_log',
  'symbolic_links',
  'skip_symbolic_links',
  'event_scheduler',
  'named_pipe',
  'shared_memory',
  'shared_memory_base_name',
  'proxy_protocol_networks',
  'read_only',
  'super_read_only',
  'disconnect_on_expired_password',
]);

/** Name patterns of such options: a prefix, a suffix, or a word anywhere. */
const REFUSED_PATTERNS: { test: (n: string) => boolean; what: string }[] = [
  { test: (n) => n.startsWith('init_'), what: 'runs SQL or a file at start or on connect' },
  { test: (n) => n.includes('plugin'), what: 'loads code into the server' },
  { test: (n) => n.includes('grant') || n.includes('password') || n.startsWith('auth') || n.includes('_auth'), what: 'changes who may log in' },
  { test: (n) => n.startsWith('secure_') || n.startsWith('ssl_') || n.startsWith('tls_') || n.startsWith('admin_') || n.startsWith('mysqlx'), what: 'changes access or where the server listens' },
  { test: (n) => /(_file|filename|_path|dir|directory|_basename|_socket|_port|_address|_user|_host)$/.test(n), what: 'names a file, a directory, an address or an account' },
];

/**
 * Why a `variable` factor may never set this option (it changes identity, access or files), or null.
 * Checked on the name as it reaches mysqld: dashes are underscores there.
 */
export function refusedVariable(name: string): string | null {
  const n = name.toLowerCase().replace(/-/g, '_');
  if (REFUSED_NAMES.has(n)) return 'it changes who the server runs as, who may log in, where it listens or which files it writes';
  const hit = REFUSED_PATTERNS.find((p) => p.test(n));
  return hit ? `it ${hit.what}` : null;
}

/** Why a factor may not set this option, whole (naming the option), or null. */
export function refusedOptionText(name: string): string | null {
  const why = refusedVariable(name);
  return why ? `the server option ${name} may not be set by a factor: ${why}. Give it to the server profile of the target instead (the Hosts view, or varlab sandbox create --set-option)` : null;
}

/** The same, naming the factor too: `design.factors[2] ("user"): the server option "user" may not…`. */
export function refusedVariableMessage(factor: string, name: string): string | null {
  const text = refusedOptionText(name);
  return text ? `factor ${factor}: ${text}` : null;
}

/** Is this a known tuning variable (no consent needed)? */
export const isTuningVariable = (name: string): boolean => TUNING_VARIABLES.has(name.toLowerCase().replace(/-/g, '_'));
