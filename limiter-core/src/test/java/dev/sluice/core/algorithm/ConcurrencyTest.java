package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link Concurrency}'s worked example, as a timeline. */
class ConcurrencyTest {
  private static final long T0 = 1_763_700_000_000_000_000L;
  private static final long SECOND = 1_000_000_000L;

  private final Concurrency twoInFlight =
      (Concurrency)
          LimiterAlgorithm.of(
              Limit.builder()
                  .algorithm(Algorithm.CONCURRENCY)
                  .limit(2)
                  .window(Duration.ofSeconds(30))
                  .build(),
              false);

  @Test
  void twoInFlight_followsTheWorkedExample() {
    long[] state = twoInFlight.newState();

    Decision a = twoInFlight.apply(state, T0, 1);
    assertThat(a.allowed()).isTrue();
    assertThat(a.remaining()).isEqualTo(1);
    assertThat(a.permitId()).isPositive();
    assertThat(a.resetAfterNanos()).isEqualTo(30 * SECOND);

    Decision b = twoInFlight.apply(state, T0 + SECOND, 1);
    assertThat(b.allowed()).isTrue();
    assertThat(b.remaining()).isZero();
    assertThat(b.permitId()).isGreaterThan(a.permitId());

    Decision third = twoInFlight.apply(state, T0 + 2 * SECOND, 1);
    assertThat(third.allowed()).isFalse();
    assertThat(third.retryAfterNanos()).as("a expires at 30 s").isEqualTo(28 * SECOND);
    assertThat(third.permitId()).isZero();

    assertThat(twoInFlight.releasePermit(state, T0 + 3 * SECOND, a.permitId()).remaining())
        .isEqualTo(1);
    assertThat(twoInFlight.releasePermit(state, T0 + 3 * SECOND, a.permitId()).remaining())
        .as("a second release of the same id frees nothing")
        .isEqualTo(1);
    Decision c = twoInFlight.apply(state, T0 + 3 * SECOND, 1);
    assertThat(c.allowed()).isTrue();
    assertThat(c.remaining()).isZero();

    assertThat(twoInFlight.apply(state, T0 + 31 * SECOND, 0).remaining())
        .as("b expired at 31 s though its holder never released it")
        .isEqualTo(1);
    assertThat(twoInFlight.untilFreshNanos(state, T0 + 31 * SECOND)).isEqualTo(2 * SECOND);
  }

  @Test
  void severalPermits_areOneIdReleasedTogether() {
    long[] state = twoInFlight.newState();
    Decision both = twoInFlight.apply(state, T0, 2);
    assertThat(both.remaining()).isZero();

    assertThat(twoInFlight.releasePermit(state, T0 + 1, both.permitId()).remaining()).isEqualTo(2);
  }

  @Test
  void otherAlgorithms_releasePermit_isAnErrorNamingPermitId() {
    LimiterAlgorithm window = LimiterAlgorithm.of(Limit.of(5, Duration.ofSeconds(1)), false);
    assertThatThrownBy(() -> window.releasePermit(window.newState(), T0, 7))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageStartingWith("permitId: only a concurrency rule");
  }

  @Test
  void limitAboveTheCap_isRefusedNamingLimit() {
    assertThatThrownBy(
            () ->
                Limit.builder()
                    .algorithm(Algorithm.CONCURRENCY)
                    .limit(Limit.MAX_CONCURRENCY + 1)
                    .window(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageStartingWith("limit: concurrency keeps one entry per permit");
  }
}
