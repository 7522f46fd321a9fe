/**
 * The account methods: balances, account data (with encodings, slices and
 * filters), program and token accounts, token balances and supplies.
 */
import { TOKEN_PROGRAM_ID } from "../../../src-shared/pool-program";
import { decodeMint, readTokenAccount, uiTokenAmount } from "../../ledger/token";
import { configAt, dataSliceParam, encodeAccount, encodingParam, filtersParam, invalidParams, matchesFilters, pubkeyParam } from "../common";
import type { Handlers, NodeContext } from "../node-context";

export function accountHandlers(node: NodeContext): Handlers {
  const ledger = node.ledger;
  return {
    getBalance: (p) => {
      const address = pubkeyParam(p[0]);
      configAt(p, 1);
      return node.withContext(Number(ledger.getBalance(address)));
    },
    getAccountInfo: (p) => {
      const address = pubkeyParam(p[0]);
      const config = configAt(p, 1);
      const a = ledger.getAccount(address);
      return node.withContext(a ? encodeAccount(a, encodingParam(config, "base58"), dataSliceParam(config)) : null);
    },
    getMultipleAccounts: (p) => {
      if (!Array.isArray(p[0])) throw invalidParams("Invalid params: expected an array of addresses");
      if (p[0].length > 100) throw invalidParams("Too many inputs provided; max 100");
      const config = configAt(p, 1);
      const encoding = encodingParam(config, "base64");
      const slice = dataSliceParam(config);
      return node.withContext(
        p[0].map((x) => {
          const a = ledger.getAccount(pubkeyParam(x));
          return a ? encodeAccount(a, encoding, slice) : null;
        }),
      );
    },
    getProgramAccounts: (p) => {
      const program = pubkeyParam(p[0]);
      const config = configAt(p, 1);
      const encoding = encodingParam(config, "base64");
      const slice = dataSliceParam(config);
      const filters = filtersParam(config.filters);
      const out = [];
      for (const [pubkey, a] of ledger.accountsOwnedBy(program)) {
        if (!matchesFilters(a, filters)) continue;
        out.push({ pubkey, account: encodeAccount(a, encoding, slice) });
      }
      return config.withContext === true ? node.withContext(out) : out;
    },
    getTokenAccountsByOwner: (p) => {
      const owner = pubkeyParam(p[0]);
      const filter = configAt(p, 1);
      const config = configAt(p, 2);
      const mint = filter.mint !== undefined ? pubkeyParam(filter.mint, "mint") : null;
      if (mint === null) {
        if (filter.programId === undefined) throw invalidParams("Invalid params: expected { mint } or { programId }");
        if (pubkeyParam(filter.programId, "programId") !== TOKEN_PROGRAM_ID) throw invalidParams("Invalid param: unrecognized Token program id");
      }
      const encoding = encodingParam(config, "base64");
      const out = [];
      for (const [pubkey, a] of ledger.accountsOwnedBy(TOKEN_PROGRAM_ID)) {
        const t = readTokenAccount(a);
        if (!t || t.owner !== owner || (mint !== null && t.mint !== mint)) continue;
        out.push({ pubkey, account: encodeAccount(a, encoding) });
      }
      return node.withContext(out);
    },
    getTokenAccountBalance: (p) => {
      const address = pubkeyParam(p[0]);
      const t = readTokenAccount(ledger.getAccount(address));
      if (!t) throw invalidParams("Invalid param: not a Token account");
      return node.withContext(uiTokenAmount(t.amount, ledger.decimalsOf(t.mint)));
    },
    getTokenSupply: (p) => {
      const mint = pubkeyParam(p[0]);
      const a = ledger.getAccount(mint);
      const m = a && a.owner === TOKEN_PROGRAM_ID ? decodeMint(a.data) : null;
      if (!m) throw invalidParams("Invalid param: not a Token mint");
      return node.withContext(uiTokenAmount(m.supply, m.decimals));
    },
  };
}
