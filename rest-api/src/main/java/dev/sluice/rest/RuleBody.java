package dev.sluice.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Rule;
import dev.sluice.core.Scope;
import dev.sluice.core.spec.LimitSpec;
import dev.sluice.core.spec.PolicySpec;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A rule as JSON, with the field names of the rules file ({@link PolicySpec}): what {@code GET
 * /v1/rules/{name}} answers (every field the algorithm has, defaults resolved; one limit in flat
 * fields, several as {@code limits}; {@code burst} and {@code buckets} only where the algorithm
 * takes them, so that an answer can be sent back as a {@code PUT} as it is) and what {@code PUT
 * /v1/rules/{name}} accepts ({@code limit} and {@code window}, or {@code limits}, required; {@code
 * name}, if given, must match the path), with a rule's own {@code scope}, {@code onHomeUnreachable}
 * and {@code localShares} ({@link dev.sluice.core.spec.RuleSpec}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RuleBody(
    @Nullable String name,
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

  /** A rule as {@code GET /v1/rules/{name}} answers it. */
  public static RuleBody of(Rule rule) {
    PolicySpec spec = PolicySpec.of(rule.policy());
    return new RuleBody(
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
        // Only a global rule says so: a local rule reads as it did before scopes.
        rule.policy().global() ? rule.policy().scope().wireName() : null,
        rule.policy().global() ? rule.policy().scope().onHomeUnreachable().wireName() : null,
        rule.policy().scope().localShares().isEmpty()
            ? null
            : new TreeMap<>(rule.policy().scope().localShares()));
  }

  /** The rule this body defines under {@code pathName}, validated. */
  Rule toRule(String pathName) {
    Rule.checkName(pathName);
    if (name != null && !name.equals(pathName)) {
      throw new InvalidPolicyException(
          "name", "'" + name + "' does not match the rule name in the path, '" + pathName + "'");
    }
    return new Rule(
        pathName,
        new PolicySpec(
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
                release)
            .toPolicy()
            .withScope(Scope.of(scope, onHomeUnreachable, localShares)));
  }
}
