pragma circom 2.1.0;

// Withdraw circuit (DESIGN.md §3, §10; docs/zk.md). Compile with:
//   npx circom2 circuits/withdraw.circom --r1cs --wasm --O2 -l node_modules -o out/zk
//
// Protocol v3. Public inputs, in this order:
//   root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment.
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
// A note's value is private; `amount` is only the part withdrawn. Two kinds of
// leaf, kept apart by Poseidon's width:
//   deposit leaf = Poseidon(precommitment, value, mint)           (computed by the pool)
//   change leaf  = Poseidon(precommitment, value, mint, origin)   (inserted by a withdrawal)
// with precommitment = Poseidon(nullifier, secret). `origin` is the deposit
// leaf a chain of notes started from: a deposit leaf is its own origin, and the
// change leaf carries it on, so a later association-set proof can reach change
// notes without another migration. Every withdrawal inserts the change leaf of
// `value - amount`, also when that is 0, so a whole withdrawal looks like a
// partial one.

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";

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
    signal input changeCommitment;

    // Private.
    signal input value;
    signal input nullifier;
    signal input secret;
    signal input isChange;
    signal input origin;
    signal input pathElements[levels];
    signal input pathIndices[levels];
    signal input changeNullifier;
    signal input changeSecret;

    isChange * (1 - isChange) === 0;

    // nullifierHash = Poseidon(nullifier)
    component nullifierHasher = Poseidon(1);
    nullifierHasher.inputs[0] <== nullifier;
    nullifierHash === nullifierHasher.out;

    // precommitment = Poseidon(nullifier, secret)
    component precommitmentHasher = Poseidon(2);
    precommitmentHasher.inputs[0] <== nullifier;
    precommitmentHasher.inputs[1] <== secret;

    // Both leaf forms are computed; isChange picks the one that must be in the tree.
    component depositLeaf = Poseidon(3);
    depositLeaf.inputs[0] <== precommitmentHasher.out;
    depositLeaf.inputs[1] <== value;
    depositLeaf.inputs[2] <== mint;

    component changeLeaf = Poseidon(4);
    changeLeaf.inputs[0] <== precommitmentHasher.out;
    changeLeaf.inputs[1] <== value;
    changeLeaf.inputs[2] <== mint;
    changeLeaf.inputs[3] <== origin;

    signal leaf;
    leaf <== depositLeaf.out + isChange * (changeLeaf.out - depositLeaf.out);

    // A deposit leaf is its own origin: without this a deposit note could claim
    // any origin and hand it on to its change.
    (1 - isChange) * (origin - depositLeaf.out) === 0;

    component tree = MerkleTreeInclusion(levels);
    tree.leaf <== leaf;
    tree.root <== root;
    for (var i = 0; i < levels; i++) {
        tree.pathElements[i] <== pathElements[i];
        tree.pathIndices[i] <== pathIndices[i];
    }

    // amount, value and remaining below 2^64: together they give amount <= value
    // (a wrapped difference would be a field element far above 2^64).
    signal remaining;
    remaining <== value - amount;
    component amountBits = Num2Bits(64);
    amountBits.in <== amount;
    component valueBits = Num2Bits(64);
    valueBits.in <== value;
    component remainingBits = Num2Bits(64);
    remainingBits.in <== remaining;

    // changeCommitment = Poseidon(Poseidon(changeNullifier, changeSecret), remaining, mint, origin)
    component changePrecommitment = Poseidon(2);
    changePrecommitment.inputs[0] <== changeNullifier;
    changePrecommitment.inputs[1] <== changeSecret;
    component changeHasher = Poseidon(4);
    changeHasher.inputs[0] <== changePrecommitment.out;
    changeHasher.inputs[1] <== remaining;
    changeHasher.inputs[2] <== mint;
    changeHasher.inputs[3] <== origin;
    changeCommitment === changeHasher.out;

    // changeNullifier != nullifier: a change note with the spent nullifier could
    // never be spent. The difference has an inverse only when it is not zero.
    signal nullifierDelta;
    nullifierDelta <== changeNullifier - nullifier;
    signal nullifierDeltaInverse;
    nullifierDeltaInverse <-- nullifierDelta != 0 ? 1 / nullifierDelta : 0;
    nullifierDelta * nullifierDeltaInverse === 1;

    // recipient is not used by any other constraint; this quadratic
    // constraint ties it into the proof so it cannot be swapped after proving
    // (a non-linear constraint survives --O2 simplification).
    signal recipientSquare;
    recipientSquare <== recipient * recipient;

    // Same for extDataHash: the relay's terms are bound by this constraint alone.
    signal extDataHashSquare;
    extDataHashSquare <== extDataHash * extDataHash;
}

component main {public [root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment]} = Withdraw(32);
