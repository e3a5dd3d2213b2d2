package dev.sluice.core.spec;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A policy as written: one limit in flat fields, or several in {@code limits}, plus the flags.
 *
 * <pre>
 * {"limit": 5, "window": "1m"}
 * {"algorithm": "gcra", "limit": 100, "window": "1s", "burst": 20, "shadow": true}
 * {"limits": [{"limit": 10, "window": "1s"}, {"limit": 1000, "window": "1h"}]}
 * </pre>
 *
 * The rules file, {@code PUT /v1/rules/{name}} and inline checks all read these fields and convert
 * them here, so they accept exactly the same policies with the same messages.
 *
 * @param permitTtl concurrency only: how long a permit lives ({@link LimitSpec#permitTtl})
 * @param limits several limits; not together with the flat fields
 * @param shadow decide and count, never deny
 * @param countDenied denied requests consume too
 * @param leases {@code auto} (the default) or {@code off}: whether the owner may lease permits of a
 *     hot key to the caller that asks
 * @param onDenied {@code reject} (the default) or {@code shadow_ban}: what a denial does at an HTTP
 *     gate ({@link Policy.OnDenied})
 * @param release {@code proof} (the default) or {@code open}: whether a release must prove the
 *     admission, or a bare count from anyone is taken ({@link Policy.Release}; rules only)
 */
public record PolicySpec(
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
    @Nullable String release) {

  /** Every field a policy may have, in the order the documentation lists them. */
  public static final String FIELDS =
      "algorithm, limit, window, burst, buckets, permitTtl, limits, shadow, countDenied, leases,"
          + " onDenied, release";

  /**
   * Whether any field is given: a check without any is a named-rule check. (Not {@code isEmpty}:
   * JSON writers take that for a field.)
   */
  public boolean hasAnyField() {
    return flat().hasAnyField()
        || limits != null
        || shadow != null
        || countDenied != null
        || leases != null
        || onDenied != null
        || release != null;
  }

  /**
   * The policy these fields describe, validated; errors name the field as written ({@code limit},
   * {@code limits[1].window}).
   *
   * @throws InvalidPolicyException naming the field at fault
   */
  public Policy toPolicy() {
    LimitSpec flat = flat();
    List<Limit> all = new ArrayList<>();
    if (limits != null) {
      if (flat.hasAnyField()) {
        throw new InvalidPolicyException(
            "limits",
            "give either one limit (" + LimitSpec.FIELDS + ") or a list of" + " limits, not both");
      }
      if (limits.isEmpty() || limits.size() > Policy.MAX_LIMITS) {
        throw new InvalidPolicyException(
            "limits", "must hold 1 to " + Policy.MAX_LIMITS + " limits, was " + limits.size());
      }
      for (int i = 0; i < limits.size(); i++) {
        LimitSpec one = limits.get(i);
        if (one == null) {
          throw new InvalidPolicyException("limits[" + i + "]", "must be an object, was null");
        }
        all.add(one.toLimit("limits[" + i + "]."));
      }
    } else {
      all.add(flat.toLimit(""));
    }
    return new Policy(
        all,
        Boolean.TRUE.equals(shadow),
        Boolean.TRUE.equals(countDenied),
        leases == null ? Policy.Leases.AUTO : Policy.Leases.fromWireName(leases),
        onDenied == null ? Policy.OnDenied.REJECT : Policy.OnDenied.fromWireName(onDenied),
        release == null ? Policy.Release.PROOF : Policy.Release.fromWireName(release));
  }

  /**
   * The fields of {@code policy}, defaults resolved: one limit flat (so that a rule of one limit
   * reads as it always did), several as {@code limits}.
   */
  public static PolicySpec of(Policy policy) {
    if (policy.isSingle()) {
      LimitSpec only = LimitSpec.of(policy.only());
      return new PolicySpec(
          only.limit(),
          only.window(),
          only.algorithm(),
          only.burst(),
          only.buckets(),
          only.permitTtl(),
          null,
          policy.shadow(),
          policy.countDenied(),
          policy.leases().wireName(),
          policy.onDenied().wireName(),
          policy.release().wireName());
    }
    List<LimitSpec> specs = new ArrayList<>();
    for (Limit limit : policy.limits()) {
      specs.add(LimitSpec.of(limit));
    }
    return new PolicySpec(
        null,
        null,
        null,
        null,
        null,
        null,
        specs,
        policy.shadow(),
        policy.countDenied(),
        policy.leases().wireName(),
        policy.onDenied().wireName(),
        policy.release().wireName());
  }

  private LimitSpec flat() {
    return new LimitSpec(limit, window, algorithm, burst, buckets, permitTtl);
  }
}
