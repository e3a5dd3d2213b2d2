package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Rule;
import dev.sluice.core.Scope;
import dev.sluice.core.spec.RuleSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code PUT /v1/rules/{name}}'s body is a rules file's rule ({@link RuleSpec}): what {@code GET}
 * answers for a global rule defines the same rule again, and bad scopes are refused naming the
 * field.
 */
class RuleSpecBodyTest {

  @Test
  void globalRule_roundTrips_andSharesOverOneAreRefusedNamingTheField() {
    RuleSpec body = scoped("global", "local_share", Map.of("eu-west", 0.5, "us-east", 0.5));
    Rule rule = body.toRule("api");
    assertThat(rule.policy().global()).isTrue();
    assertThat(RuleSpec.of(rule).toRule("api")).isEqualTo(rule);
    assertThat(RuleSpec.of(new Rule("local", rule.policy().withScope(Scope.LOCAL))).scope())
        .isNull();

    RuleSpec over = scoped("global", "local_share", Map.of("eu-west", 0.6, "us-east", 0.5));
    assertThatThrownBy(() -> over.toRule("api"))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("localShares"))
        .hasMessageContaining("must sum to at most 1");
    RuleSpec unknown = scoped("planet", null, null);
    assertThatThrownBy(() -> unknown.toRule("api"))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("scope"));
  }

  /** A sliding window of 1,000 a minute with these rule fields. */
  private static RuleSpec scoped(
      String scope, String onHomeUnreachable, Map<String, Double> localShares) {
    return new RuleSpec(
        null,
        "sliding_window",
        1000L,
        "1m",
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        scope,
        onHomeUnreachable,
        localShares);
  }
}
