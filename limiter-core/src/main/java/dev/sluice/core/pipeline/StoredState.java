package dev.sluice.core.pipeline;

import java.util.Arrays;

/**
 * A key's state as a store keeps it: the algorithm's {@code long[]} and a fingerprint of the policy
 * shape that gives the numbers their meaning ({@link CompiledPolicy#fingerprint()}). No limit,
 * burst or flag is stored: they come from the policy on every decision, so changing a limit needs
 * no migration, and a state of another shape is carried over ({@link KeyDecision}).
 *
 * @param fingerprint the shape the values were written under
 * @param values the algorithm's state; owned by the store, copied before it is changed
 */
public record StoredState(int fingerprint, long[] values) {

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredState other
        && fingerprint == other.fingerprint
        && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return 31 * fingerprint + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "StoredState{fingerprint=" + fingerprint + ", values=" + Arrays.toString(values) + '}';
  }
}
