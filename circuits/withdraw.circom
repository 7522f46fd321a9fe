pragma circom 2.1.0;

// Withdraw circuit (DESIGN.md §3). Compile with:
//   npx circom2 circuits/withdraw.circom --r1cs --wasm --O2 -l node_modules -o out/zk
//
// Protocol v2. Public inputs, in this order:
//   root, nullifierHash, recipient, amount, mint, extDataHash.
// circom lists public inputs in the order they are DECLARED in the main
// template (not the order of the `public [...]` list), so the declarations
// below must stay in that order.
//
// recipient and mint are the field elements Poseidon(hi, lo) of the 32-byte
// public keys (hi/lo = first/last 16 bytes, big-endian), computed outside.
// extDataHash = Poseidon(relayer, fee, outputMint, minOut) is computed outside
// too (by the relay and by the pool program from the transaction): it binds
// who receives the fee, the fee, and a swap's output mint and minimum, so a
// proof copied out of a transaction is worthless on any other terms.
//
// The leaf is never taken from the depositor: the pool computes it as
// Poseidon(precommitment, amount, mint) from the amount it received, with
// precommitment = Poseidon(nullifier, secret); the circuit recomputes it.

include "circomlib/circuits/poseidon.circom";

// Orders (node, sibling) into (left, right) by the selector bit s:
// s = 0: node is the LEFT child  -> (node, sibling)
// s = 1: node is the RIGHT child -> (sibling, node)
// and constrains s to be a bit.
template OrderPair() {
    signal input node;
    signal input sibling;
    signal input s;
    signal output left;
    signal output right;

    s * (1 - s) === 0;

    signal d;
    d <== (sibling - node) * s;
    left <== node + d;
    right <== sibling - d;
}

// Proves that `leaf` is in the tree of `root` at the position given by
// pathIndices (bit i = 0: the node at level i is a left child).
template MerkleTreeInclusion(levels) {
    signal input leaf;
    signal input root;
    signal input pathElements[levels];
    signal input pathIndices[levels];

    // nodes[i] is the node on the path at level i (nodes[0] = leaf).
    signal nodes[levels + 1];
    component order[levels];
    component hashers[levels];

    nodes[0] <== leaf;
    for (var i = 0; i < levels; i++) {
        order[i] = OrderPair();
        order[i].node <== nodes[i];
        order[i].sibling <== pathElements[i];
        order[i].s <== pathIndices[i];

        hashers[i] = Poseidon(2);
        hashers[i].inputs[0] <== order[i].left;
        hashers[i].inputs[1] <== order[i].right;
        nodes[i + 1] <== hashers[i].out;
    }

    root === nodes[levels];
}

template Withdraw(levels) {
    // Public (declaration order = public signal order).
    signal input root;
    signal input nullifierHash;
    signal input recipient;
    signal input amount;
    signal input mint;
    signal input extDataHash;

    // Private.
    signal input nullifier;
    signal input secret;
    signal input pathElements[levels];
    signal input pathIndices[levels];

    // nullifierHash = Poseidon(nullifier)
    component nullifierHasher = Poseidon(1);
    nullifierHasher.inputs[0] <== nullifier;
    nullifierHash === nullifierHasher.out;

    // precommitment = Poseidon(nullifier, secret)
    component precommitmentHasher = Poseidon(2);
    precommitmentHasher.inputs[0] <== nullifier;
    precommitmentHasher.inputs[1] <== secret;

    // commitment = Poseidon(precommitment, amount, mint), as the pool computes it
    component commitmentHasher = Poseidon(3);
    commitmentHasher.inputs[0] <== precommitmentHasher.out;
    commitmentHasher.inputs[1] <== amount;
    commitmentHasher.inputs[2] <== mint;

    component tree = MerkleTreeInclusion(levels);
    tree.leaf <== commitmentHasher.out;
    tree.root <== root;
    for (var i = 0; i < levels; i++) {
        tree.pathElements[i] <== pathElements[i];
        tree.pathIndices[i] <== pathIndices[i];
    }

    // recipient is not used by any other constraint; this quadratic
    // constraint ties it into the proof so it cannot be swapped after proving
    // (a non-linear constraint survives --O2 simplification).
    signal recipientSquare;
    recipientSquare <== recipient * recipient;

    // Same for extDataHash: the relay's terms are bound by this constraint alone.
    signal extDataHashSquare;
    extDataHashSquare <== extDataHash * extDataHash;
}

component main {public [root, nullifierHash, recipient, amount, mint, extDataHash]} = Withdraw(32);
