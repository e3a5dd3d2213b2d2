package dev.sluice.rest;

import dev.sluice.core.Check;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReservationId;
import dev.sluice.core.spec.LimitSpec;
import dev.sluice.core.spec.PolicySpec;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /v1/check}, one element of a batch, and of the routes that address one
 * key ({@code /v1/release}, {@code /v1/limits/peek}, {@code /v1/limits/reset}): a named rule, or an
 * inline policy (redis-cell style) in {@link PolicySpec}'s fields, never both.
 *
 * <pre>
 * {"rule": "login", "key": "203.0.113.7", "cost": 1}
 * {"key": "203.0.113.7", "limit": 10, "window": "1m", "algorithm": "gcra", "burst": 5}
 * {"key": "user-42", "limits": [{"limit": 10, "window": "1s"}, {"limit": 1000, "window": "1h"}]}
 * {"rule": "exports", "key": "user-42", "maxWaitMs": 2000}       wait up to 2 s (answer: delayMs)
 * {"rule": "db", "key": "user-42", "permitId": "1790000000000000001"}  release a permit by its id
 * {"rule": "llm-tokens", "key": "team-7", "cost": 500, "ttlMs": 60000}  reserve an estimate
 * {"key": "user-42", "limit": 3, "window": "1h", "onDenied": "shadow_ban"}  a denial says shadowBanned
 * {"receipt": "AQAAAAAAAAAB..."}                     give back what a check took, with its receipt
 * </pre>
 *
 * Every field is boxed so that "absent" is visible: {@link #toCheck()} applies the defaults and
 * names the field at fault when something is missing or out of bounds.
 */
public record CheckRequest(
    @Nullable String rule,
    @Nullable String key,
    @Nullable Long cost,
    @Nullable Long maxWaitMs,
    @Nullable String permitId,
    @Nullable Long ttlMs,
    @Nullable Long limit,
    @Nullable String window,
    @Nullable String algorithm,
    @Nullable Long burst,
    @Nullable Integer buckets,
    @Nullable String permitTtl,
    @Nullable List<LimitSpec> limits,
    @Nullable Boolean shadow,
    @Nullable Boolean countDenied,
    @Nullable String leases,
    @Nullable String onDenied,
    @Nullable String release,
    @Nullable String receipt) {

  /** The check this request asks for, validated; nothing has been counted yet. */
  Check toCheck() {
    if (key == null) {
      throw new InvalidPolicyException("key", "is required: the subject to limit, e.g. a user id");
    }
    return new Check(ref(), key, cost == null ? 1 : cost, maxWait());
  }

  /** {@code maxWaitMs} as a duration; {@link Duration#ZERO} when absent. */
  private Duration maxWait() {
    if (maxWaitMs == null) {
      return Duration.ZERO;
    }
    if (maxWaitMs < 0 || maxWaitMs > Check.MAX_WAIT.toMillis()) {
      throw new InvalidPolicyException(
          "maxWaitMs",
          "must be between 0 and " + Check.MAX_WAIT.toMillis() + " (1 day), was " + maxWaitMs);
    }
    return Duration.ofMillis(maxWaitMs);
  }

  /**
   * {@code ttlMs}, the time a reservation stays open, as a duration.
   *
   * @throws InvalidPolicyException naming {@code ttlMs} if it is absent or out of bounds
   */
  Duration ttl() {
    long max = ReservationId.MAX_TTL.toMillis();
    if (ttlMs == null) {
      throw new InvalidPolicyException(
          "ttlMs",
          "is required: how long the reservation stays open before it is settled at its"
              + " estimate, 1 to "
              + max
              + " ms");
    }
    if (ttlMs < 1 || ttlMs > max) {
      throw new InvalidPolicyException(
          "ttlMs", "must be between 1 and " + max + " (1 day), was " + ttlMs);
    }
    return Duration.ofMillis(ttlMs);
  }

  /**
   * {@code permitId} as the number a concurrency check answered, or null when absent.
   *
   * @throws InvalidPolicyException naming {@code permitId} if it is not one
   */
  @Nullable Long permit() {
    if (permitId == null) {
      return null;
    }
    try {
      long id = Long.parseLong(permitId);
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new InvalidPolicyException(
        "permitId", "must be the permitId a concurrency check answered, was '" + permitId + "'");
  }

  /** The rule or inline policy this request names, validated. */
  PolicyRef ref() {
    PolicySpec spec = policy();
    if (rule != null) {
      if (spec.hasAnyField()) {
        throw new InvalidPolicyException(
            "rule",
            "give either a rule name or an inline policy (" + PolicySpec.FIELDS + "), not both");
      }
      return PolicyRef.rule(rule);
    }
    if (!spec.hasAnyField()) {
      throw new InvalidPolicyException(
          "rule", "is required, or give an inline policy with limit and window");
    }
    return PolicyRef.inline(spec.toPolicy());
  }

  private PolicySpec policy() {
    return new PolicySpec(
        limit,
        window,
        algorithm,
        burst,
        buckets,
        permitTtl,
        limits,
        shadow,
        countDenied,
        leases,
        onDenied,
        release);
  }

  /**
   * The receipt of {@code POST /v1/release}, alone: it names its key and cost itself.
   *
   * @throws InvalidPolicyException naming the field given beside it, or {@code receipt} if it is
   *     not a receipt
   */
  Receipt receiptAlone() {
    String beside =
        rule != null
            ? "rule"
            : key != null ? "key" : cost != null ? "cost" : policy().hasAnyField() ? "limit" : null;
    if (beside != null) {
      throw new InvalidPolicyException(
          beside, "is not taken with a receipt: the receipt names its key, rule and cost");
    }
    return Receipt.parse(receipt);
  }
}
