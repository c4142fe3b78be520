#!/bin/bash
# The variance ratio paired/unpaired (1 − ρ, docs/STATISTICS.md "ρ, measured") of this machine, by an A/A
# build design: a local sandbox mariadbd with two copies of the same binary as builds A and B, the
# quickstart's first two queries, interleaved, ROUNDS rounds (default 40), 12 executions with 4 of
# warm-up, idle 0. Run it on a quiet machine; it prints `pairing` of `varlab analyze --json`.
# Usage: scripts/measure-rho.sh [DIR]   (DIR is made and left for inspection; default a new temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
MARIADBD=${MARIADBD:-/usr/sbin/mariadbd}
ROUNDS=${ROUNDS:-40}
D=${1:-$(mktemp -d /var/tmp/varlab-rho-XXXXXX)}
mkdir -p "$D/a" "$D/b" "$D/home"
chmod 755 "$D" "$D/a" "$D/b"   # mariadbd runs as mysql and must reach its data directory
cp "$MARIADBD" "$D/a/mariadbd"; cp "$MARIADBD" "$D/b/mariadbd"
export VARLAB_HOME="$D/home"
varlab() { node node_modules/.bin/tsx src/cli/main.ts "$@"; }
varlab sandbox create local --dir "$D" --build "A=$D/a/mariadbd" --build "B=$D/b/mariadbd"
trap 'varlab sandbox remove local' EXIT
node -e '
const fs = require("fs");
const d = JSON.parse(fs.readFileSync("examples/quickstart.varlab.json", "utf8"));
Object.assign(d.design, { idleSeconds: 0, factors: [{ tunable: "build", levels: ["A", "B"] }], excludedCells: [], restartsPerCell: Number(process.argv[2]), order: "interleaved" });
Object.assign(d.design.workload, { queries: d.design.workload.queries.slice(0, 2), repetitions: 12, warmup: 4 });
fs.writeFileSync(process.argv[1], JSON.stringify(d, null, 2));' "$D/aa.varlab.json" "$ROUNDS"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
varlab run "$D/aa.varlab.json" --trust
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
varlab analyze "$D/aa.varlab.json" --baseline build=A --json > "$D/analysis.json"
node -e 'const a = require(process.argv[1]); console.log(JSON.stringify(a.pairing)); for (const c of a.comparisons) console.log(c.query, "variance ratio", c.variance_ratio.toFixed(3), "df", c.df, c.verdict); console.log("restarts flagged busy:", (a.host_noise?.busy ?? []).length)' "$D/analysis.json"
echo "files in $D"
