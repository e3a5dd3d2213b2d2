package dev.sluice.core.grid;

import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** One request waiting in a {@link OwnerBatcher}: what to decide and who waits for the answer. */
record Pending(
    String stateKey,
    int partitionId,
    @Nullable String rule,
    @Nullable Policy policy,
    long permits,
    CompletableFuture<Decision> answer) {

  /** Whether this request can share one {@link KeyRequests} with {@code other}. */
  boolean sameRequestsAs(Pending other) {
    return stateKey.equals(other.stateKey)
        && (rule != null
            ? rule.equals(other.rule)
            : other.rule == null && policy.equals(other.policy));
  }
}
