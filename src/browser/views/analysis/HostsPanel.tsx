// One design run on several hosts (issue 14): the host is a block factor. Spread between hosts is
// shown beside spread between restarts, per cell and query, and a factor whose effect differs between
// hosts beyond the restart-to-restart noise is flagged (the host × factor interaction test, named).
import type { Analysis } from '../../../common/stats/index.js';
import { fmtEffect, fmtP } from '../../../common/export/format.js';
import { fmtPct, NullNotes, Reasons, TABLE_STYLE, V } from './format.js';
import type { Workload } from '../../../common/experiment/types.js';
import { measureWord } from '../../../common/experiment/words.js';

export function HostsPanel({ analysis, kind }: { analysis: Analysis; kind?: Workload['kind'] }) {
  const h = analysis.hosts!;
  const notes = new Reasons();
  const order = (q: string) => analysis.order.indexOf(q);
  const spread = [...h.spread].sort((x, y) => (x.cell < y.cell ? -1 : x.cell > y.cell ? 1 : order(x.query) - order(y.query)));
  const interactions = [...h.interactions].sort((x, y) => Number(!x.flagged) - Number(!y.flagged));
  return (
    <>
      <p data-testid="hosts-summary" className={h.interactions.some((i) => i.flagged) ? 'problem' : ''}>
        {h.hosts.length} hosts ({h.hosts.join(', ')}), the host a block factor named <code>{h.factor}</code>: {h.summary}.
      </p>
      <table style={TABLE_STYLE} data-testid="hosts-spread">
        <thead>
          <tr>
            <th>cell</th>
            <th>{measureWord(kind)}</th>
            <th className="num">hosts</th>
            <th className="num" title={analysis.methods.host_spread}>
              between hosts
            </th>
            <th className="num">between restarts</th>
          </tr>
        </thead>
        <tbody>
          {spread.map((r) => (
            <tr key={`${r.cell}/${r.query}`}>
              <td>{r.cell || '(no factors)'}</td>
              <td>{r.query}</td>
              <td className="num">{r.n_hosts}</td>
              <td className="num">
                <V value={r.between_host_cov_pct} reason={r.null_reasons?.between_host_cov_pct} fmt={fmtPct} notes={notes} where={`${r.cell} / ${r.query}`} />
              </td>
              <td className="num">
                <V value={r.between_restart_cov_pct} reason={r.null_reasons?.between_restart_cov_pct} fmt={fmtPct} notes={notes} where={`${r.cell} / ${r.query}`} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {interactions.length ? (
        <>
          <p className="small muted">{analysis.methods.host_interaction}.</p>
          <table style={TABLE_STYLE} data-testid="hosts-interactions">
            <thead>
              <tr>
                <th>factor</th>
                <th>level</th>
                <th>{measureWord(kind)}</th>
                {h.hosts.map((x) => (
                  <th key={x} className="num">
                    effect on {x}
                  </th>
                ))}
                <th className="num">F</th>
                <th className="num">adjusted p</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {interactions.map((i) => (
                <tr key={`${i.factor}/${i.level}/${i.query}`} data-testid={i.flagged ? 'host-interaction-flagged' : undefined}>
                  <td>{i.factor}</td>
                  <td>
                    {i.level} vs {i.baseline_level}
                  </td>
                  <td>{i.query}</td>
                  {h.hosts.map((x) => (
                    <td key={x} className="num">
                      {fmtEffect(i.effects_pct[x] ?? null)}
                    </td>
                  ))}
                  <td className="num">
                    <V value={i.f} reason={i.null_reasons?.f} fmt={(x) => x.toFixed(2)} notes={notes} where={`${i.factor}=${i.level} / ${i.query}`} />
                  </td>
                  <td className="num">{fmtP(i.p_adjusted)}</td>
                  <td className={i.flagged ? 'problem' : 'muted'}>{i.flagged ? 'differs between hosts' : i.flagged === false ? 'alike' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      <NullNotes notes={notes} />
    </>
  );
}
