// Factors from the tunable catalog: add and remove them, switch each level on or off as a chip,
// add a custom level (checked against the catalog's syntax, the message shown inline).
import { useEffect, useState } from 'react';
import { tunable } from '../../../common/catalog.js';
import type { Design, Factor } from '../../../common/experiment/types.js';
import { designHosts } from '../../../common/plan.js';
import { addBuildCommand } from '../../../common/tunables/build.js';
import { getClient } from '../../client.js';
import { useApp } from '../../store/index.js';
import { addFactor, addLevel, addableTunables, customLevelProblem, levelChoices, moveFactor, removeFactor, renameVariable, toggleLevel, variableNameProblem } from './edits.js';
import type { Problems } from './problems.js';

type DesignEdit = (fn: (d: Design) => Design | string, key?: string) => string | null;

/** Apply a design edit through the store (so it can be undone); a string result is a refusal to show. */
export function useDesignEdit(): DesignEdit {
  const edit = useApp((s) => s.edit);
  return (fn, key) => {
    let refusal: string | null = null;
    edit((doc) => {
      const r = fn(doc.design);
      if (typeof r === 'string') {
        refusal = r;
        return doc;
      }
      return { ...doc, design: r };
    }, key);
    return refusal;
  };
}

/**
 * The builds registered for the design's hosts (and those of a server profile the file carries): the
 * levels the build factor offers. Asked of the backend when the hosts change.
 */
function useBuilds(design: Design): string[] {
  const hosts = designHosts(design).join('\n');
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    void getClient()
      .call('host.list', {})
      .then((r) => {
        if (!live || !r.ok) return;
        const wanted = hosts.split('\n');
        setNames(r.value.filter((h) => wanted.includes(h.target)).flatMap((h) => h.profile?.builds?.map((b) => b.name) ?? []));
      });
    return () => {
      live = false;
    };
  }, [hosts]);
  const own = design.serverProfile?.builds?.map((b) => b.name) ?? [];
  return [...new Set([...names, ...own])];
}

function FactorRow({ design, factor, index, problems, builds }: { design: Design; factor: Factor; index: number; problems: Problems; builds: string[] }) {
  const change = useDesignEdit();
  const [custom, setCustom] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const t = tunable(factor.tunable);
  const offered = factor.tunable === 'build' ? builds : [];
  const at = `design.factors[${index}]`;
  const levelProblems = Object.entries(problems)
    .filter(([k]) => k === `${at}.levels` || k.startsWith(`${at}.levels[`) || k === `${at}.tunable`)
    .map(([, v]) => v);
  const customProblem = custom ? customLevelProblem(factor, custom) : null;
  const nameProblem = t?.needsName ? (factor.name ? variableNameProblem(design, index, factor.name) : problems[`${at}.name`]) : null;
  const submitCustom = () => {
    const refusal = change((d) => addLevel(d, index, custom.trim()));
    setMessage(refusal);
    if (!refusal) setCustom('');
  };
  return (
    <div className="factor" data-testid="factor" data-factor={factor.tunable === 'variable' ? factor.name || 'variable' : factor.tunable}>
      <div className="factor-head">
        <strong title={t?.help}>{t?.label ?? factor.tunable}</strong>
        {t?.needsName && (
          <input
            className="var-name"
            placeholder="server variable, e.g. innodb_buffer_pool_size"
            value={factor.name ?? ''}
            aria-invalid={!!nameProblem}
            onChange={(e) => {
              const name = e.target.value;
              change((d) => renameVariable(d, index, name), `factor.name:${index}`);
            }}
            spellCheck={false}
          />
        )}
        <span className="muted small help">{t?.help}</span>
        <span className="factor-tools">
          <button className="icon" title="Move up (rows of the grid come from the first factors)" disabled={index === 0} onClick={() => change((d) => moveFactor(d, index, -1))}>
            ↑
          </button>
          <button className="icon" title="Move down" disabled={index === design.factors.length - 1} onClick={() => change((d) => moveFactor(d, index, 1))}>
            ↓
          </button>
          <button className="icon danger" title={`Remove the factor ${t?.label ?? factor.tunable}`} data-testid="remove-factor" onClick={() => change((d) => removeFactor(d, index))}>
            ✕
          </button>
        </span>
      </div>
      {nameProblem && <div className="problem">{nameProblem}</div>}
      {factor.tunable === 'build' && !builds.length && (
        <div className="muted small" data-testid="no-builds">
          {/* One command whether or not the host has a sandbox yet (add-build makes one when it has none). */}
          No build is registered for {designHosts(design).join(', ')}: add builds in the Hosts view, or with{' '}
          {designHosts(design).map((h, i) => (
            <span key={h}>
              {i > 0 && '; '}
              <code className="command">{addBuildCommand(h)}</code>
            </span>
          ))}
          .
        </div>
      )}
      <div className="chips">
        {levelChoices(factor, offered).map((level) => {
          const on = factor.levels.includes(level);
          return (
            <button
              key={level}
              className={`chip${on ? ' on' : ''}`}
              aria-pressed={on}
              data-testid="level-chip"
              data-level={level}
              title={on ? `Leave out the level ${level}` : `Include the level ${level}`}
              onClick={() => setMessage(change((d) => toggleLevel(d, index, level, offered)))}
            >
              {level}
            </button>
          );
        })}
        <form
          className="custom-level"
          onSubmit={(e) => {
            e.preventDefault();
            submitCustom();
          }}
        >
          <input
            placeholder={t?.syntax ?? 'level'}
            value={custom}
            onChange={(e) => {
              setCustom(e.target.value);
              setMessage(null);
            }}
            aria-invalid={!!customProblem}
            data-testid="custom-level"
            spellCheck={false}
          />
          <button type="submit" disabled={!custom || !!customProblem} data-testid="add-level">
            Add level
          </button>
        </form>
      </div>
      {(customProblem || message || levelProblems.length > 0) && (
        <div className="problem" data-testid="factor-problem">
          {customProblem ?? message ?? levelProblems.join('; ')}
        </div>
      )}
    </div>
  );
}

export function FactorsEditor({ design, problems }: { design: Design; problems: Problems }) {
  const change = useDesignEdit();
  const addable = addableTunables(design);
  const builds = useBuilds(design);
  return (
    <section className="panel" data-testid="factors">
      <h2>Factors</h2>
      {design.factors.length === 0 && <p className="muted">No factors: the plan restarts one configuration. Add a factor to compare levels.</p>}
      {design.factors.map((f, i) => (
        <FactorRow key={`${i}:${f.tunable}`} design={design} factor={f} index={i} problems={problems} builds={builds} />
      ))}
      <label className="add-factor">
        <span>Add factor</span>
        <select
          value=""
          data-testid="add-factor"
          onChange={(e) => {
            const id = e.target.value;
            if (id) change((d) => addFactor(d, id, id === 'build' ? builds : []));
          }}
        >
          <option value="">choose a tunable…</option>
          {addable.map((t) => (
            <option key={t.id} value={t.id} title={t.help}>
              {t.id === 'build' ? `${t.label} (${builds.length || 'none'} registered for this host)` : t.label}
            </option>
          ))}
        </select>
      </label>
    </section>
  );
}
