import { WalletReadyState } from "@solana/wallet-adapter-base";
import { useWallet, WalletProvider } from "@solana/wallet-adapter-react";
import { useEffect, useState, type FormEvent } from "react";
import { useApi } from "../../api/context";
import type { Network } from "../../../src-shared/networks";
import { NetworkSelect } from "../../components/NetworkSelect";
import { CopyValue } from "../../components/CopyValue";
import { Field } from "../../components/SelectField";
import { revertDeposit, type RevertOutcome } from "./revert-flow";

/**
 * The depositor's page (no operator token): get back a deposit that never
 * reached the pool's tree. Any Wallet Standard wallet in the browser can sign;
 * the relay checks that it is the wallet that made the deposit.
 */
export default function WalletPage() {
  return (
    <WalletProvider wallets={[]} autoConnect={false} onError={() => {}}>
      <main className="wallet-page">
        <section className="panel wallet-card" aria-labelledby="wallet-title">
          <div className="shell-brand">
            <span className="shell-logo" aria-hidden="true" />
            <span className="shell-title">Withdrawal Relay</span>
          </div>
          <h1 id="wallet-title">Revert a failed deposit</h1>
          <p className="muted">
            A deposit whose funds reached the pool but whose note never entered the tree can be paid back to the wallet that made it. Connect that wallet, paste
            the deposit&apos;s transaction signature, and sign twice: once to log in, once to ask for the revert.
          </p>
          <Connect />
          <RevertForm />
        </section>
      </main>
    </WalletProvider>
  );
}

function Connect() {
  const { wallets, wallet, publicKey, select, connect, disconnect, connecting, connected } = useWallet();
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  // select() takes effect on the next render; connect once the provider holds the chosen wallet.
  useEffect(() => {
    if (!pending || wallet?.adapter.name !== pending || connected || connecting) return;
    setPending(null);
    connect().catch((e: unknown) => setProblem(e instanceof Error ? e.message || e.name : String(e)));
  }, [pending, wallet, connected, connecting, connect]);
  const usable = wallets.filter((w) => w.readyState === WalletReadyState.Installed || w.readyState === WalletReadyState.Loadable);

  if (publicKey && wallet) {
    return (
      <div className="wallet-connected" data-testid="wallet-connected">
        <span className="muted">Connected {wallet.adapter.name}</span>
        <CopyValue value={publicKey.toBase58()} label="wallet address" display={publicKey.toBase58()} />
        <button type="button" className="button button-small" onClick={() => void disconnect()}>
          Disconnect
        </button>
      </div>
    );
  }
  return (
    <div className="wallet-connect">
      {usable.length === 0 ? (
        <p className="state state-empty">No wallet found in this browser. Install a Solana wallet that supports the Wallet Standard, then reload.</p>
      ) : (
        usable.map((w) => (
          <button
            key={w.adapter.name}
            type="button"
            className="button"
            disabled={connecting}
            onClick={() => {
              setProblem(null);
              select(w.adapter.name);
              setPending(w.adapter.name);
            }}
          >
            {w.adapter.icon ? <img src={w.adapter.icon} alt="" className="wallet-icon" /> : null} Connect {w.adapter.name}
          </button>
        ))
      )}
      {problem ? (
        <p className="field-error" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  );
}

function RevertForm() {
  const api = useApi();
  const { publicKey, signMessage } = useWallet();
  const [network, setNetwork] = useState<Network>("mainnet");
  const [signature, setSignature] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<RevertOutcome | null>(null);
  const ready = Boolean(publicKey && signMessage);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!publicKey || !signMessage) return;
    setBusy(true);
    setOutcome(null);
    setOutcome(await revertDeposit(api, { address: publicKey.toBase58(), signMessage }, network, signature));
    setBusy(false);
  };

  return (
    <form className="wallet-form" onSubmit={(e) => void submit(e)}>
      <Field label="Network">
        <NetworkSelect value={network} onChange={setNetwork} />
      </Field>
      <Field label="Deposit transaction signature">
        <input className="input" value={signature} onChange={(e) => setSignature(e.target.value)} spellCheck={false} placeholder="5J8…" />
      </Field>
      <button type="submit" className="button button-primary" disabled={!ready || busy || signature.trim() === ""}>
        {busy ? "Waiting for the wallet and the relay…" : ready ? "Revert deposit" : "Connect a wallet first"}
      </button>
      {outcome?.ok ? (
        <div className="banner banner-ok" role="status" data-testid="revert-result">
          <span className="banner-icon" aria-hidden="true">
            ✓
          </span>
          <div>
            <p className="banner-title">Reverted: the deposit went back to your wallet</p>
            <p className="banner-body">
              Transaction <CopyValue value={outcome.signature} label="revert transaction" />
            </p>
          </div>
        </div>
      ) : outcome ? (
        <div className="banner banner-bad" role="alert" data-testid="revert-result">
          <span className="banner-icon" aria-hidden="true">
            !
          </span>
          <div>
            <p className="banner-title">{outcome.title}</p>
            <p className="banner-body">{outcome.detail}</p>
          </div>
        </div>
      ) : null}
    </form>
  );
}
