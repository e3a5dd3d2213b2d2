package dev.sluice.core.pipeline;

import dev.sluice.core.PolicyRef;
import java.util.Arrays;

/**
 * What a runtime decides in one atomic step on one key: the operations, in order, under one rule or
 * inline policy. A batch is one command per key.
 *
 * @param stateKey {@code ref.stateKey(subject)}
 * @param ref the rule or inline policy the key is limited by
 * @param ops the operations, decided in this order, each seeing the ones before it; not copied
 */
public record KeyCommand(String stateKey, PolicyRef ref, KeyOp[] ops) {

  /** One operation on {@code subject}'s state under {@code ref}. */
  public static KeyCommand of(PolicyRef ref, String subject, KeyOp op) {
    return new KeyCommand(ref.stateKey(subject), ref, new KeyOp[] {op});
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
