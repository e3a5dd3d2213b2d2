package dev.sluice.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import org.jspecify.annotations.Nullable;

/**
 * A rule as JSON, with the field names of the rules file: what {@code GET /v1/rules/{name}} answers
 * (every field the algorithm has, defaults resolved; {@code burst} and {@code buckets} only where
 * the algorithm takes them, so that an answer can be sent back as a {@code PUT} as it is) and what
 * {@code PUT /v1/rules/{name}} accepts (only {@code limit} and {@code window} required; {@code
 * name}, if given, must match the path).
 */
public record RuleBody(
    @Nullable String name,
    @Nullable String algorithm,
    @Nullable Long limit,
    @Nullable String window,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Long burst,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer buckets,
    @Nullable Boolean shadow,
    @Nullable Boolean countDenied) {

  static RuleBody of(Rule rule) {
    Policy policy = rule.policy();
    return new RuleBody(
        rule.name(),
        policy.algorithm().wireName(),
        policy.limit(),
        Durations.format(policy.window()),
        policy.algorithm().hasBurst() ? policy.burst() : null,
        policy.algorithm().hasBuckets() ? policy.buckets() : null,
        policy.shadow(),
        policy.countDenied());
  }

  /** The rule this body defines under {@code pathName}, validated. */
  Rule toRule(String pathName) {
    Rule.checkName(pathName);
    if (name != null && !name.equals(pathName)) {
      throw new InvalidPolicyException(
          "name", "'" + name + "' does not match the rule name in the path, '" + pathName + "'");
    }
    if (limit == null) {
      throw new InvalidPolicyException("limit", "is required: permits per window");
    }
    if (window == null) {
      throw new InvalidPolicyException("window", "is required, e.g. \"1m\", \"250ms\" or \"PT1M\"");
    }
    return new Rule(
        pathName,
        CheckRequest.policy(limit, window, algorithm, burst, buckets, shadow, countDenied));
  }
}
