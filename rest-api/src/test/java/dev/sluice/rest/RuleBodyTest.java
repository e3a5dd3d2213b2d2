package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.spec.RuleSpec;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
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

  private static List<String> components(Class<? extends Record> type) {
    return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
  }
}
