// The DBT-3 schema for MySQL and MariaDB: the tables of the TPC-H specification (Clause 1.4) with
// their primary keys, and the secondary indexes DBT-3 creates after the load. Column order is the
// `.tbl` files' order, so one LOAD DATA statement per table fits generated rows and dbgen's files.
import { MARKER_TABLES, type Dbt3Table } from './scale.js';

export const CREATE_TABLE: Record<Dbt3Table, string> = {
  region: 'r_regionkey INT NOT NULL, r_name CHAR(25) NOT NULL, r_comment VARCHAR(152) NOT NULL, PRIMARY KEY (r_regionkey)',
  nation: 'n_nationkey INT NOT NULL, n_name CHAR(25) NOT NULL, n_regionkey INT NOT NULL, n_comment VARCHAR(152) NOT NULL, PRIMARY KEY (n_nationkey)',
  part:
    'p_partkey INT NOT NULL, p_name VARCHAR(55) NOT NULL, p_mfgr CHAR(25) NOT NULL, p_brand CHAR(10) NOT NULL, p_type VARCHAR(25) NOT NULL, p_size INT NOT NULL, p_container CHAR(10) NOT NULL, p_retailprice DECIMAL(15,2) NOT NULL, p_comment VARCHAR(23) NOT NULL, PRIMARY KEY (p_partkey)',
  supplier:
    's_suppkey INT NOT NULL, s_name CHAR(25) NOT NULL, s_address VARCHAR(40) NOT NULL, s_nationkey INT NOT NULL, s_phone CHAR(15) NOT NULL, s_acctbal DECIMAL(15,2) NOT NULL, s_comment VARCHAR(101) NOT NULL, PRIMARY KEY (s_suppkey)',
  partsupp:
    'ps_partkey INT NOT NULL, ps_suppkey INT NOT NULL, ps_availqty INT NOT NULL, ps_supplycost DECIMAL(15,2) NOT NULL, ps_comment VARCHAR(199) NOT NULL, PRIMARY KEY (ps_partkey, ps_suppkey)',
  customer:
    'c_custkey INT NOT NULL, c_name VARCHAR(25) NOT NULL, c_address VARCHAR(40) NOT NULL, c_nationkey INT NOT NULL, c_phone CHAR(15) NOT NULL, c_acctbal DECIMAL(15,2) NOT NULL, c_mktsegment CHAR(10) NOT NULL, c_comment VARCHAR(117) NOT NULL, PRIMARY KEY (c_custkey)',
  orders:
    'o_orderkey INT NOT NULL, o_custkey INT NOT NULL, o_orderstatus CHAR(1) NOT NULL, o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, o_orderpriority CHAR(15) NOT NULL, o_clerk CHAR(15) NOT NULL, o_shippriority INT NOT NULL, o_comment VARCHAR(79) NOT NULL, PRIMARY KEY (o_orderkey)',
  lineitem:
    'l_orderkey INT NOT NULL, l_partkey INT NOT NULL, l_suppkey INT NOT NULL, l_linenumber INT NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL, l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL, l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, l_comment VARCHAR(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber)',
};

/** DBT-3's secondary indexes, added after the rows are in (faster than keeping them up during the load). */
export const INDEXES: Record<Dbt3Table, [name: string, columns: string][]> = {
  region: [],
  nation: [['i_n_regionkey', 'n_regionkey']],
  part: [],
  supplier: [['i_s_nationkey', 's_nationkey']],
  partsupp: [
    ['i_ps_partkey', 'ps_partkey'],
    ['i_ps_suppkey', 'ps_suppkey'],
  ],
  customer: [['i_c_nationkey', 'c_nationkey']],
  orders: [
    ['i_o_orderdate', 'o_orderdate'],
    ['i_o_custkey', 'o_custkey'],
  ],
  lineitem: [
    ['i_l_shipdate', 'l_shipdate'],
    ['i_l_suppkey_partkey', 'l_partkey, l_suppkey'],
    ['i_l_partkey', 'l_partkey'],
    ['i_l_suppkey', 'l_suppkey'],
    ['i_l_receiptdate', 'l_receiptdate'],
    ['i_l_orderkey', 'l_orderkey'],
    ['i_l_orderkey_quantity', 'l_orderkey, l_quantity'],
    ['i_l_commitdate', 'l_commitdate'],
  ],
};

/** The statement that creates a table (latin1, as DBT-3's own scripts: the data is ASCII, and rows stay as small as dbgen's). */
export function createTable(table: Dbt3Table): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (${CREATE_TABLE[table]}) ENGINE=InnoDB DEFAULT CHARSET=latin1`;
}

/** The statement that adds a table's secondary indexes (those in `missing`), or null when there are none. */
export function addIndexes(table: Dbt3Table, missing: string[]): string | null {
  const add = INDEXES[table].filter(([name]) => missing.includes(name));
  return add.length ? `ALTER TABLE ${table} ${add.map(([name, cols]) => `ADD INDEX ${name} (${cols})`).join(', ')}` : null;
}

/** LOAD DATA for one table from a `.tbl` stream (fields and lines end in `|`, as dbgen writes them). */
export function loadStatement(table: Dbt3Table, source: string, local: boolean): string {
  return `LOAD DATA ${local ? 'LOCAL ' : ''}INFILE ${quoteString(source)} INTO TABLE ${table} CHARACTER SET latin1 FIELDS TERMINATED BY '|' ESCAPED BY '' LINES TERMINATED BY '|\\n'`;
}

function quoteString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The marker tables: what was loaded (SF, seed, generator version, state) and which chunks are in. */
export const [MARKER_TABLE, CHUNK_TABLE] = MARKER_TABLES;
export const CREATE_MARKER = `CREATE TABLE IF NOT EXISTS ${MARKER_TABLE} (id TINYINT NOT NULL PRIMARY KEY, sf DECIMAL(6,2) NOT NULL, seed BIGINT NOT NULL, source VARCHAR(255) NOT NULL, version INT NOT NULL, state VARCHAR(16) NOT NULL, row_counts TEXT NULL, started_at DATETIME NOT NULL, finished_at DATETIME NULL) ENGINE=InnoDB`;
export const CREATE_CHUNKS = `CREATE TABLE IF NOT EXISTS ${CHUNK_TABLE} (tbl VARCHAR(16) NOT NULL, chunk INT NOT NULL, row_count BIGINT NOT NULL, PRIMARY KEY (tbl, chunk)) ENGINE=InnoDB`;
