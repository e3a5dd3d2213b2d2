package dev.sluice.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import org.jspecify.annotations.Nullable;

/**
 * The answer to one check (docs/rest-api.md). Delays are whole milliseconds rounded up, so a client
 * that waits {@code retryAfterMs} succeeds.
 *
 * @param allowed whether the request may proceed (always true under a shadow rule)
 * @param limit the most permits the key can hold
 * @param remaining permits left after this call
 * @param resetAfterMs until the key is back to full capacity if no other traffic arrives
 * @param retryAfterMs 0 when allowed; else the wait after which the same request is allowed
 * @param rule the rule's name, or null for an inline policy
 * @param shadow the rule is a shadow rule and would have denied this request
 * @param shadowBanned only on a denial under a rule whose {@code onDenied} is {@code shadow_ban}:
 *     the answer is still a 429 with {@code allowed: false} (the limit holds for a caller that
 *     reads only the status), and says that the calling service should answer its own client as if
 *     the request had succeeded, skipping the side effect
 * @param delayMs how long the caller waits before proceeding: leaky_bucket's shaping delay, or a
 *     booking's wait (a check with {@code maxWaitMs}); absent when neither applies
 * @param permitId concurrency rules: the admitted permit's id, to send to {@code POST /v1/release};
 *     a string, since it does not fit the integers every JSON reader keeps exact
 * @param decidedBy only when the answer was made without the grid's limiter: {@code fail_open} or
 *     {@code fail_closed} (the grid was unreachable; the rule's failure policy answered) or {@code
 *     denied_cache} (a recent denial of the key has not run out) or {@code lease} (permits the
 *     key's owner admitted in advance to this node, counted there); absent when the limiter decided
 * @param released only in an all-or-nothing batch that was denied: this check was admitted and its
 *     permits were given back
 * @param reservationId only from {@code POST /v1/reserve}, when the estimate was taken: the id to
 *     send to {@code POST /v1/commit} with the actual cost
 * @param receipt only when permits were taken: the proof to give them back with, {@code POST
 *     /v1/release} {@code {"receipt": ...}}, once, within the window they were admitted in
 */
public record DecisionBody(
    boolean allowed,
    long limit,
    long remaining,
    long resetAfterMs,
    long retryAfterMs,
    @Nullable String rule,
    boolean shadow,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Boolean shadowBanned,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Long delayMs,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String decidedBy,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Boolean released,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String permitId,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String reservationId,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String receipt) {

  /** The answer for {@code decision}, under {@code rule} (null: inline) of {@code policy}. */
  public static DecisionBody of(Decision decision, @Nullable String rule, @Nullable Policy policy) {
    return of(decision, rule, policy, false);
  }

  static DecisionBody of(
      Decision decision, @Nullable String rule, @Nullable Policy policy, boolean released) {
    boolean shaping =
        policy != null
            && policy.limits().stream()
                .anyMatch(limit -> limit.algorithm() == Algorithm.LEAKY_BUCKET);
    return new DecisionBody(
        decision.allowed(),
        decision.limit(),
        decision.remaining(),
        decision.resetAfterMillis(),
        decision.retryAfterMillis(),
        rule,
        decision.shadowDenied(),
        decision.shadowBanned() ? Boolean.TRUE : null,
        shaping || decision.delayNanos() > 0 ? decision.delayMillis() : null,
        decidedBy(decision.decidedBy()),
        released ? Boolean.TRUE : null,
        decision.permitId() != 0 ? Long.toString(decision.permitId()) : null,
        null,
        decision.receipt() == null ? null : decision.receipt().encode());
  }

  /** This answer carrying the id of the reservation it took. */
  public DecisionBody withReservationId(@Nullable String id) {
    return new DecisionBody(
        allowed,
        limit,
        remaining,
        resetAfterMs,
        retryAfterMs,
        rule,
        shadow,
        shadowBanned,
        delayMs,
        decidedBy,
        released,
        permitId,
        id,
        receipt);
  }

  /** The wire name of a local decision's maker, like the metric's {@code reason} label. */
  static @Nullable String decidedBy(Decision.DecidedBy by) {
    return switch (by) {
      case LIMITER -> null;
      case DENIED_CACHE -> "denied_cache";
      case FAIL_OPEN -> "fail_open";
      case FAIL_CLOSED -> "fail_closed";
      case LEASE -> "lease";
    };
  }
}
