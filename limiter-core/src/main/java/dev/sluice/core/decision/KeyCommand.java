package dev.sluice.core.decision;

import dev.sluice.core.PolicyRef;
import java.util.Arrays;

/**
 * What a runtime decides in one atomic step on one key: the operations, in order, under one rule or
 * inline policy. A batch is one command per key.
 *
 * @param stateKey {@code ref.stateKey(subject)}
 * @param ref the rule or inline policy the key is limited by
 * @param ops the operations, decided in this order, each seeing the ones before it; not copied
 * @param ownerOnly decided by the key's owner alone: no layer in front of it answers an operation
 *     itself (a lease, a cached denial) or asks for a lease along with it. An all-or-nothing batch
 *     sends such commands, since it gives back what they took with the exact undo of each admission
 *     at the owner. Not sent on the wire: it only steers the layers of the sending process.
 */
public record KeyCommand(String stateKey, PolicyRef ref, KeyOp[] ops, boolean ownerOnly) {

  /** A command the layers in front of the owner may answer in part. */
  public KeyCommand(String stateKey, PolicyRef ref, KeyOp[] ops) {
    this(stateKey, ref, ops, false);
  }

  /** One operation on {@code subject}'s state under {@code ref}. */
  public static KeyCommand of(PolicyRef ref, String subject, KeyOp op) {
    return new KeyCommand(ref.stateKey(subject), ref, new KeyOp[] {op});
  }

  /**
   * Whether a layer in front of the owner may answer operation {@code index} itself: an acquire
   * that does not wait (a lease cannot book a future instant; a cached denial says nothing of a
   * wait), in a command not reserved for the owner.
   */
  public boolean mayAnswerHere(int index) {
    KeyOp op = ops[index];
    return !ownerOnly && op.kind() == KeyOp.Kind.ACQUIRE && op.maxWaitNanos() == 0;
  }

  /** The same key and policy, with {@code otherOps}. */
  public KeyCommand withOps(KeyOp[] otherOps) {
    return new KeyCommand(stateKey, ref, otherOps, ownerOnly);
  }

  /** Whether every operation only reads (a peek), so the runtime may take a read-only path. */
  public boolean readOnly() {
    for (KeyOp op : ops) {
      if (op.kind() != KeyOp.Kind.PEEK) {
        return false;
      }
    }
    return true;
  }

  /** Equal commands decide the same: {@link #ownerOnly} is the sender's, and not compared. */
  @Override
  public boolean equals(Object o) {
    return o instanceof KeyCommand other
        && stateKey.equals(other.stateKey)
        && ref.equals(other.ref)
        && Arrays.equals(ops, other.ops);
  }

  @Override
  public int hashCode() {
    return stateKey.hashCode() * 31 + Arrays.hashCode(ops);
  }

  @Override
  public String toString() {
    return "KeyCommand{" + stateKey + ", " + ref + ", " + Arrays.toString(ops) + '}';
  }
}
