import { useEffect, useState, type FormEvent } from "react";
import type { AdminPoolSummary, AdminTreeNode, AdminTreeNodeRef } from "../../../src-shared/api/admin";
import { useTreeNode } from "../../api/admin-hooks";
import type { Network } from "../../../src-shared/networks";
import { TREE_DEPTH as DEPTH } from "../../../src-shared/pool-program/constants";
import { hrefFor } from "../../app/routes";
import { Badge } from "../../components/Badge";
import { CopyValue } from "../../components/CopyValue";
import { QueryView } from "../../components/QueryView";
import { Field } from "../../components/SelectField";
import { formatCount, plural, shortHex } from "../../lib/format";
import { formatAmount, mintLabel } from "../../lib/mints";
import { formatDateTime } from "../../lib/time";

const LEAF0 = 2 ** DEPTH;

/** Heap indices from the root down to `index`: 1, ⌊i/2^k⌋, ..., i. */
export function ancestry(index: number): number[] {
  const out: number[] = [];
  for (let i = index; i >= 1; i = Math.floor(i / 2)) out.unshift(i);
  return out;
}

/** A walk down a pool's tree in heap order (1 = root, children 2i and 2i+1, leaf j = 2^32 + j). */
export function TreeExplorer({ network, mint, leaf = null, pool }: { network: Network; mint: string; leaf?: number | null; pool: AdminPoolSummary | null }) {
  const start = leaf === null ? 1 : LEAF0 + leaf;
  const [index, setIndex] = useState(start);
  useEffect(() => setIndex(start), [network, mint, start]);
  const node = useTreeNode(network, mint, index);
  const path = ancestry(index);
  const label = `${mintLabel(mint)} on ${network}`;

  return (
    <section className="panel tree" aria-labelledby="tree-title" data-testid="tree-explorer">
      <header className="tree-header">
        <div>
          <h2 id="tree-title">Tree explorer · {label}</h2>
          <p className="muted">
            {pool ? `${plural(pool.nextIndex, "leaf", "leaves")} filled of 2^32. ` : ""}Open a child to walk down; a leaf shows the deposit or withdrawal that
            inserted it.
          </p>
        </div>
        <a className="button button-small" href={hrefFor("pools")}>
          Close
        </a>
      </header>
      <TreeTools index={index} pool={pool} setIndex={setIndex} />
      <TreePath path={path} index={index} setIndex={setIndex} />
      <QueryView query={node} loading="Reading the node…">
        {(n) => (
          <div className="tree-body">
            <NodeCard node={n} mint={mint} />
            {n.children.length > 0 ? (
              <div className="tree-children">
                {n.children.map((c, i) => (
                  <ChildCard key={c.index} child={c} side={i === 0 ? "Left" : "Right"} onOpen={() => setIndex(c.index)} />
                ))}
              </div>
            ) : null}
          </div>
        )}
      </QueryView>
    </section>
  );
}

/** Root, parent, newest leaf, and a jump to any leaf index. */
function TreeTools({ index, pool, setIndex }: { index: number; pool: AdminPoolSummary | null; setIndex: (index: number) => void }) {
  const [jump, setJump] = useState("");
  const [jumpError, setJumpError] = useState<string | null>(null);
  const goToLeaf = (e: FormEvent) => {
    e.preventDefault();
    const n = Number(jump);
    if (!/^[0-9]+$/.test(jump) || !Number.isSafeInteger(n) || n >= LEAF0) return setJumpError("A leaf index is a whole number below 2^32.");
    setJumpError(null);
    setIndex(LEAF0 + n);
  };

  return (
    <div className="tree-tools">
      <button type="button" className="button button-small" onClick={() => setIndex(1)} disabled={index === 1}>
        Root
      </button>
      <button type="button" className="button button-small" onClick={() => setIndex(Math.floor(index / 2))} disabled={index === 1}>
        Parent
      </button>
      {pool && pool.nextIndex > 0 ? (
        <button type="button" className="button button-small" onClick={() => setIndex(LEAF0 + pool.nextIndex - 1)}>
          Newest leaf
        </button>
      ) : null}
      <form className="inline-form" onSubmit={goToLeaf}>
        <Field label="Leaf" inline>
          <input
            className="input input-small"
            inputMode="numeric"
            value={jump}
            onChange={(e) => setJump(e.target.value)}
            aria-label="Leaf index"
            placeholder="index"
          />
        </Field>
        <button type="submit" className="button button-small">
          Go
        </button>
      </form>
      {jumpError ? <span className="field-error">{jumpError}</span> : null}
    </div>
  );
}

/** The path from the root to the open node, one step per level. */
function TreePath({ path, index, setIndex }: { path: number[]; index: number; setIndex: (index: number) => void }) {
  return (
    <nav className="tree-path" aria-label="Path from the root">
      {path.map((i, k) => (
        <button
          key={i}
          type="button"
          className="tree-step"
          aria-current={i === index ? "step" : undefined}
          onClick={() => setIndex(i)}
          title={`heap index ${i}, height ${DEPTH - k}`}
        >
          {k === 0 ? "root" : i % 2 === 0 ? "L" : "R"}
        </button>
      ))}
    </nav>
  );
}

/** The open node: its value, the leaves it covers, and for a leaf the transaction that inserted it. */
function NodeCard({ node: n, mint }: { node: AdminTreeNode; mint: string }) {
  return (
    <div className="tree-node" data-testid="tree-node">
      <p className="tree-node-title">
        {n.height === DEPTH ? "Root" : n.height === 0 ? `Leaf ${formatCount(n.firstLeaf)}` : `Node at height ${n.height}`}{" "}
        <span className="muted">heap index {n.index}</span>{" "}
        {n.empty ? <Badge tone="neutral">empty subtree</Badge> : n.height === 0 ? null : <Badge tone="ok">{plural(n.filled, "leaf", "leaves")} below</Badge>}
        {n.leaf ? <Badge tone="neutral">{n.leaf.kind === "change" ? "change leaf" : "deposit leaf"}</Badge> : null}
      </p>
      <CopyValue value={`0x${n.value}`} display={shortHex(`0x${n.value}`, 10, 10)} label={`value of node ${n.index}`} />
      <p className="muted">
        Covers leaves {formatCount(n.firstLeaf)} to {formatCount(n.firstLeaf + n.span - 1)}
      </p>
      {n.leaf ? (
        <dl className="kv">
          <dt>{n.leaf.kind === "change" ? "Withdrawal transaction" : "Deposit transaction"}</dt>
          <dd>
            <CopyValue value={n.leaf.signature} label={n.leaf.kind === "change" ? "withdrawal transaction" : "deposit transaction"} />
          </dd>
          <dt>{n.leaf.kind === "change" ? "Value" : "Amount"}</dt>
          <dd>
            {n.leaf.kind === "change" ? (
              <span className="muted">private: what was left of the note withdrawn from, known only to its owner</span>
            ) : n.leaf.amount !== null ? (
              formatAmount(n.leaf.amount, mint)
            ) : (
              <span className="muted">not recorded (indexed before protocol v3)</span>
            )}
          </dd>
          <dt>Slot</dt>
          <dd>{formatCount(n.leaf.slot)}</dd>
          <dt>Indexed</dt>
          <dd>{formatDateTime(n.leaf.indexedAt)}</dd>
        </dl>
      ) : null}
    </div>
  );
}

function ChildCard({ child, side, onOpen }: { child: AdminTreeNodeRef; side: string; onOpen: () => void }) {
  return (
    <button
      type="button"
      className={`tree-child${child.filled === 0 ? " tree-child-empty" : ""}`}
      onClick={onOpen}
      aria-label={`Open the ${side.toLowerCase()} child, heap index ${child.index}`}
    >
      <span className="tree-child-side">{side}</span>
      <code>{shortHex(`0x${child.value}`)}</code>
      <span className="muted">{child.filled === 0 ? "empty" : plural(child.filled, "leaf", "leaves")}</span>
    </button>
  );
}
