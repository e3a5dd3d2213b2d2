package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Rule;
import dev.sluice.core.Scope;
import dev.sluice.core.spec.RuleSpec;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code PUT /v1/rules/{name}} and a rules file take the same fields: REST's body has a rules
 * file's rule's components ({@link RuleSpec}: a name and the policy's fields), in the same order.
 */
class RuleBodyTest {

  @Test
  void fields_areThoseOfARuleInARulesFile() {
    assertThat(components(RuleBody.class)).containsExactlyElementsOf(components(RuleSpec.class));
  }

  @Test
  void globalRule_roundTrips_andSharesOverOneAreRefusedNamingTheField() {
    RuleBody body = scoped("global", "local_share", Map.of("eu-west", 0.5, "us-east", 0.5));
    Rule rule = body.toRule("api");
    assertThat(rule.policy().global()).isTrue();
    assertThat(RuleBody.of(rule).toRule("api")).isEqualTo(rule);
    assertThat(RuleBody.of(new Rule("local", rule.policy().withScope(Scope.LOCAL))).scope())
        .isNull();

    RuleBody over = scoped("global", "local_share", Map.of("eu-west", 0.6, "us-east", 0.5));
    assertThatThrownBy(() -> over.toRule("api"))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("localShares"))
        .hasMessageContaining("must sum to at most 1");
    RuleBody unknown = scoped("planet", null, null);
    assertThatThrownBy(() -> unknown.toRule("api"))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("scope"));
  }

  /** A sliding window of 1,000 a minute with these rule fields. */
  private static RuleBody scoped(
      String scope, String onHomeUnreachable, Map<String, Double> localShares) {
    return new RuleBody(
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

  private static List<String> components(Class<? extends Record> type) {
    return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
  }
}
