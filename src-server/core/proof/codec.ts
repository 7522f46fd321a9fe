/** The proof wire codec lives in src-shared (clients encode, the relay decodes); the core re-exports it. */
export * from "../../../src-shared/zk/proof-codec";
