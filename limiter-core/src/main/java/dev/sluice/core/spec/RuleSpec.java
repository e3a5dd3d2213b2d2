package dev.sluice.core.spec;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Rule;
import dev.sluice.core.Scope;
import dev.sluice.core.config.ScalarText;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A rule as written in a rules file: its {@code name} and then exactly {@link PolicySpec}'s fields,
 * in the same order, so that a rule in the file accepts what {@code PUT /v1/rules/{name}} accepts
 * (REST's body has these components too; tests hold the three records together).
 *
 * <pre>
 * - name: login
 *   limit: 5
 *   window: 1m
 * - name: payments
 *   limits:
 *     - {limit: 5, window: 1s}
 *     - {limit: 100, window: 1h}
 * </pre>
 *
 * Then a rule's own fields, which an inline check does not have: {@code scope} ({@code local}, the
 * default, or {@code global}: counted at the home grid for every region), and for a global rule
 * {@code onHomeUnreachable} ({@code fail_closed}, the default, {@code fail_open} or {@code
 * local_share}) and {@code localShares} (each region's share of the limit, summing to at most 1),
 * as docs/multi-region.md describes.
 *
 * @param name {@code [A-Za-z0-9_.-]{1,64}}, required; a YAML number ({@code name: 404}) is taken as
 *     the text it was written as
 */
public record RuleSpec(
    @JsonDeserialize(using = ScalarText.class) @Nullable String name,
    @Nullable String algorithm,
    @Nullable Long limit,
    @Nullable String window,
    @Nullable Long burst,
    @Nullable Integer buckets,
    @Nullable String permitTtl,
    @Nullable List<LimitSpec> limits,
    @Nullable Boolean shadow,
    @Nullable Boolean countDenied,
    @Nullable String leases,
    @Nullable String onDenied,
    @Nullable String release,
    @Nullable String scope,
    @Nullable String onHomeUnreachable,
    @Nullable Map<String, Double> localShares) {

  /** The policy fields, without the name. */
  public PolicySpec policy() {
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
   * The rule these fields describe, validated; errors name the field as written ({@code name},
   * {@code limit}, {@code limits[1].window}).
   *
   * @throws InvalidPolicyException naming the field at fault
   */
  public Rule toRule() {
    if (name == null) {
      throw new InvalidPolicyException("name", "is required: [A-Za-z0-9_.-]{1,64}");
    }
    Rule.checkName(name);
    return new Rule(
        name, policy().toPolicy().withScope(Scope.of(scope, onHomeUnreachable, localShares)));
  }
}
