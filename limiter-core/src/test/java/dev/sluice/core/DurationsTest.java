package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

  @Test
  void parse_shortForms() {
    assertThat(Durations.parse("window", "250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Durations.parse("window", "1s")).isEqualTo(Duration.ofSeconds(1));
    assertThat(Durations.parse("window", "1m")).isEqualTo(Duration.ofMinutes(1));
    assertThat(Durations.parse("window", "1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("window", "1d")).isEqualTo(Duration.ofDays(1));
    assertThat(Durations.parse("window", " 30d ")).isEqualTo(Duration.ofDays(30));
  }

  @Test
  void parse_iso8601() {
    assertThat(Durations.parse("window", "PT1M")).isEqualTo(Duration.ofMinutes(1));
    assertThat(Durations.parse("window", "PT0.25S")).isEqualTo(Duration.ofMillis(250));
    assertThat(Durations.parse("window", "P1D")).isEqualTo(Duration.ofDays(1));
  }

  @Test
  void parse_zero_isADurationThatPolicyThenRejects() {
    // "0s" is a well-formed duration; whether it makes sense is the field's business.
    assertThat(Durations.parse("window", "0s")).isZero();
    assertThatThrownBy(() -> Policy.of(1, Durations.parse("window", "0s")))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("window"))
        .hasMessageContaining("between 1ms and 30d, was 0s");
  }

  @Test
  void parse_garbage_rejectedNamingTheFieldAndQuotingTheInput() {
    for (String bad : new String[] {"-1m", "abc", "", "1", "1 m", "1.5s", "m", "1w", "PT", "P1X"}) {
      assertThatThrownBy(() -> Durations.parse("window", bad))
          .as("'%s'", bad)
          .isInstanceOfSatisfying(
              InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("window"))
          .hasMessageContaining("'" + bad + "' is not a duration")
          .hasMessageContaining("250ms");
    }
  }

  @Test
  void parse_shortFormWithTooManyDigits_rejectedAsOutOfRange() {
    assertThat(Durations.parse("window", "999999999999d"))
        .isEqualTo(Duration.ofDays(999999999999L));
    for (String huge : new String[] {"9223372036854775807ms", "1000000000000d"}) {
      assertThatThrownBy(() -> Durations.parse("window", huge))
          .as("'%s'", huge)
          .isInstanceOfSatisfying(
              InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("window"))
          .hasMessageContaining("'" + huge + "' is out of range")
          .hasMessageContaining("12 digits");
    }
  }

  @Test
  void format_wholeUnitsAsShortFormElseIso() {
    assertThat(Durations.format(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
    assertThat(Durations.format(Duration.ofMinutes(1))).isEqualTo("1m");
    assertThat(Durations.format(Duration.ofHours(2))).isEqualTo("2h");
    assertThat(Durations.format(Duration.ofDays(30))).isEqualTo("30d");
    assertThat(Durations.format(Duration.ofNanos(1500))).isEqualTo("PT0.0000015S");
    assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
    for (String text : new String[] {"250ms", "90s", "1m", "2h", "30d"}) {
      assertThat(Durations.format(Durations.parse("window", text))).isEqualTo(text);
    }
  }
}
