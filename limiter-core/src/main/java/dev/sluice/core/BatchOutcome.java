package dev.sluice.core;

import java.util.List;
import java.util.Set;

/**
 * The answer to a batch: one decision per check, in order, and in {@link BatchMode#ALL} which check
 * denied and which were given back.
 *
 * @param decisions one per check, as each was decided
 * @param allowed whether every check was admitted (in mode ALL: whether the batch was)
 * @param deniedBy the index of the first denied check, or -1 if none was denied
 * @param released the indexes of checks admitted and then given back because another was denied
 *     (mode ALL only; empty otherwise)
 */
public record BatchOutcome(
    List<Decision> decisions, boolean allowed, int deniedBy, Set<Integer> released) {

  public BatchOutcome {
    decisions = List.copyOf(decisions);
    released = Set.copyOf(released);
  }

  /** A batch decided check by check ({@link BatchMode#EACH}). */
  public static BatchOutcome each(List<Decision> decisions) {
    int deniedBy = -1;
    for (int i = 0; i < decisions.size() && deniedBy < 0; i++) {
      if (!decisions.get(i).allowed()) {
        deniedBy = i;
      }
    }
    return new BatchOutcome(decisions, deniedBy < 0, deniedBy, Set.of());
  }
}
