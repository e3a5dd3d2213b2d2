package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Rule names are {@code [A-Za-z0-9_.-]{1,64}}: every character class and both length bounds. */
class RuleTest {

  @Test
  void checkName_acceptsEveryAllowedCharacter_andBothLengthBounds() {
    assertThat(Rule.checkName("a")).isEqualTo("a");
    assertThat(Rule.checkName("AZaz09_.-")).isEqualTo("AZaz09_.-");
    String longest = "x".repeat(64);
    assertThat(Rule.checkName(longest)).isEqualTo(longest);
  }

  @Test
  void checkName_refusesEverythingElse_namingTheField() {
    String[] invalid = {
      "",
      "x".repeat(65),
      "log in",
      "a|b",
      "~inline",
      "é",
      "a/b",
      "a\u0000",
      "Ａ",
      "a:b",
      "@",
      "[",
      "`",
      "{"
    };
    for (String name : invalid) {
      assertThatThrownBy(() -> Rule.checkName(name))
          .as("name '%s'", name)
          .isInstanceOfSatisfying(
              InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("name"))
          .hasMessageContaining("rule names are 1 to 64 characters");
    }
    assertThatThrownBy(() -> Rule.checkName(null)).isInstanceOf(InvalidPolicyException.class);
  }
}
