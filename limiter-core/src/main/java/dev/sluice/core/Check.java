package dev.sluice.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One request for permits: under a named rule or an inline policy ({@link PolicyRef}), on a key
 * (the subject: a user id, an IP, an API key), for a number of permits. Validated on construction,
 * so a {@code Check} that exists can be decided by any runtime; what only the rule can tell (a cost
 * above its capacity, an unknown rule) is checked where the rule is known, before anything is
 * counted.
 *
 * @param ref the rule or inline policy
 * @param key any non-empty UTF-8 text up to {@value StateKey#MAX_SUBJECT_BYTES} bytes
 * @param permits the cost, at least 0 (0 reports the state and consumes nothing)
 * @param maxWait how long the caller will wait for permits the key does not have now: within it the
 *     permits are booked for the instant they fit and the decision is allowed with that {@code
 *     delay} to wait; {@link Duration#ZERO} (the default) never waits. At most {@link #MAX_WAIT}.
 * @param proof for a release only: what shows the permits are the caller's to give back ({@link
 *     ReleaseProof}); {@link ReleaseProof.Bare#NONE} by default, and for every other request
 */
public record Check(PolicyRef ref, String key, long permits, Duration maxWait, ReleaseProof proof) {

  /** The longest wait a check may ask for. */
  public static final Duration MAX_WAIT = Duration.ofDays(1);

  public Check {
    if (proof == null) {
      throw new InvalidPolicyException("receipt", "is required (ReleaseProof.Bare.NONE: none)");
    }
    if (maxWait == null) {
      throw new InvalidPolicyException("maxWait", "is required (Duration.ZERO: no wait)");
    }
    if (maxWait.isNegative() || maxWait.compareTo(MAX_WAIT) > 0) {
      throw new InvalidPolicyException(
          "maxWait", "must be between 0 and 1d, was " + Durations.format(maxWait));
    }
    if (ref == null) {
      throw new InvalidPolicyException("rule", "give either a rule name or an inline policy");
    }
    StateKey.checkSubject(key);
    if (permits < 0) {
      throw new InvalidPolicyException("cost", "must not be negative, was " + permits);
    }
  }

  /** A check that shows no proof: every request but a release. */
  public Check(PolicyRef ref, String key, long permits, Duration maxWait) {
    this(ref, key, permits, maxWait, ReleaseProof.Bare.NONE);
  }

  /** A check that does not wait. */
  public Check(PolicyRef ref, String key, long permits) {
    this(ref, key, permits, Duration.ZERO);
  }

  public static Check of(String rule, String key, long permits) {
    return new Check(PolicyRef.rule(rule), key, permits);
  }

  public static Check of(String rule, String key) {
    return of(rule, key, 1);
  }

  public static Check inline(Policy policy, String key, long permits) {
    return new Check(PolicyRef.inline(policy), key, permits);
  }

  /** The key this check's state is stored under. */
  public String stateKey() {
    return ref.stateKey(key);
  }

  /** The same request for another number of permits. */
  public Check withPermits(long newPermits) {
    return new Check(ref, key, newPermits, maxWait, proof);
  }

  /** The same request, willing to wait up to {@code wait} (see {@link #maxWait()}). */
  public Check withMaxWait(Duration wait) {
    return new Check(ref, key, permits, wait, proof);
  }

  /** The same request as a release showing {@code newProof}. */
  public Check withProof(ReleaseProof newProof) {
    return new Check(ref, key, permits, maxWait, newProof);
  }

  /** Whether this check may be booked ahead instead of denied. */
  public boolean waits() {
    return !maxWait.isZero();
  }

  /**
   * The checks of an all-or-nothing batch, refused if one may wait: the batch's give-back is the
   * exact undo of admissions made now, and a booking ahead is not one. Checked before anything is
   * sent, by the pipeline and by any decorator that answers on its own when the runtime is slow.
   */
  public static List<Check> requireNoWait(List<Check> checks) {
    for (int i = 0; i < checks.size(); i++) {
      if (checks.get(i) != null && checks.get(i).waits()) {
        throw new InvalidPolicyException(
            "checks[" + i + "].maxWait", "an all-or-nothing batch does not wait");
      }
    }
    return checks;
  }

  /**
   * The checks of a batch, refused before anything is decided if the list or one of its elements is
   * null: the caller's bug, and the exception says which ({@code checks[2] is null}).
   */
  public static List<Check> requireAll(@Nullable List<Check> checks) {
    Objects.requireNonNull(checks, "checks must not be null");
    for (int i = 0; i < checks.size(); i++) {
      if (checks.get(i) == null) {
        throw new NullPointerException("checks[" + i + "] is null");
      }
    }
    return checks;
  }
}
