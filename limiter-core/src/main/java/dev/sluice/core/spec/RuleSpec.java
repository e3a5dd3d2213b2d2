package dev.sluice.core.spec;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Rule;
import dev.sluice.core.Scope;
import dev.sluice.core.config.ScalarText;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A rule as written in a rules file and as {@code PUT /v1/rules/{name}} takes it and {@code GET}
 * answers it: its {@code name} and then exactly {@link PolicySpec}'s fields, in the same order
 * (tests hold the two records together).
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
@JsonInclude(JsonInclude.Include.NON_NULL)
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

  /**
   * {@code rule} in these fields, as {@code GET /v1/rules/{name}} answers it and a rules file could
   * hold it: every field its algorithm has, defaults resolved ({@link PolicySpec#of}); {@code
   * scope}, {@code onHomeUnreachable} and {@code localShares} only for a global rule, so that a
   * local rule reads as it did before scopes.
   */
  public static RuleSpec of(Rule rule) {
    PolicySpec spec = PolicySpec.of(rule.policy());
    Scope scope = rule.policy().scope();
    boolean global = rule.policy().global();
    return new RuleSpec(
        rule.name(),
        spec.algorithm(),
        spec.limit(),
        spec.window(),
        spec.burst(),
        spec.buckets(),
        spec.permitTtl(),
        spec.limits(),
        spec.shadow(),
        spec.countDenied(),
        spec.leases(),
        spec.onDenied(),
        spec.release(),
        global ? scope.wireName() : null,
        global ? scope.onHomeUnreachable().wireName() : null,
        scope.localShares().isEmpty() ? null : new TreeMap<>(scope.localShares()));
  }

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
    return toRule(name);
  }

  /**
   * The rule these fields describe under {@code ruleName} (one the caller took from elsewhere, a
   * REST path), validated as {@link #toRule()} does; {@link #name()} is not read.
   *
   * @throws InvalidPolicyException naming the field at fault
   */
  public Rule toRule(String ruleName) {
    Rule.checkName(ruleName);
    return new Rule(
        ruleName, policy().toPolicy().withScope(Scope.of(scope, onHomeUnreachable, localShares)));
  }
}
