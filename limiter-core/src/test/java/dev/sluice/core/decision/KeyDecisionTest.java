package dev.sluice.core.decision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decide step's handling of stored states: fit, carried over, or forgotten and counted. */
class KeyDecisionTest {
  private static final long MINUTE = Duration.ofMinutes(1).toNanos();
  private static final long T0 = 29_395_000L * MINUTE; // epoch-aligned, November 2025

  @Test
  void decide_stateOfAnotherShape_isCarriedOverThroughTheFormerPolicysAdmissions() {
    CompiledPolicy former = compiled(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1));
    long[] values = former.algorithm().newState();
    former.algorithm().apply(values, T0 + MINUTE / 2, 3);
    StoredState stored = new StoredState(former.fingerprint(), values.clone());
    CompiledPolicy policy = compiled(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(10));
    long now = T0 + MINUTE + 1;

    KeyDecision.Result result =
        KeyDecision.decide(
            policy,
            stored,
            fp -> fp == former.fingerprint() ? former : null,
            now,
            new KeyOp[] {KeyOp.acquire(1)});

    // The fixed window's 3 are placed at the last instant of their window and still count.
    Decision decision = result.outcome().decision(0);
    assertThat(decision.allowed()).isTrue();
    assertThat(decision.remaining()).isEqualTo(1);
    assertThat(result.forgotten()).isFalse();
    long[] expected = KeyDecision.carryOver(former.algorithm(), values, policy.algorithm(), now);
    policy.algorithm().apply(expected, now, 1);
    assertThat(result.written()).isEqualTo(new StoredState(policy.fingerprint(), expected));
    assertThat(result.untilFreshNanos()).isEqualTo(10 * MINUTE); // the newest entry is now
  }

  /**
   * gcra 10 per second, burst 9, with 10 admitted: changed to 1 per second, the debt of 1 s (ten
   * permits at the old 100 ms) would stand for one permit at the new 1 s and let 9 more in. The
   * limit is part of a rate algorithm's shape, so the state is carried over in permits instead.
   */
  @Test
  void decide_rateAlgorithmWhoseLimitWasLowered_admitsNothingTheNewRuleWouldNot() {
    for (Algorithm algorithm : List.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET)) {
      CompiledPolicy former =
          CompiledPolicy.of(
              Policy.builder()
                  .algorithm(algorithm)
                  .limit(10)
                  .window(Duration.ofSeconds(1))
                  .burst(algorithm == Algorithm.GCRA ? 9 : 10)
                  .build());
      long[] values = former.algorithm().newState();
      assertThat(former.algorithm().apply(values, T0, 10).allowed()).isTrue();
      CompiledPolicy lowered =
          CompiledPolicy.of(
              Policy.builder()
                  .algorithm(algorithm)
                  .limit(1)
                  .window(Duration.ofSeconds(1))
                  .burst(algorithm == Algorithm.GCRA ? 9 : 10)
                  .build());
      assertThat(lowered.fingerprint()).isNotEqualTo(former.fingerprint());

      KeyDecision.Result result =
          KeyDecision.decide(
              lowered,
              new StoredState(former.fingerprint(), values),
              fp -> fp == former.fingerprint() ? former : null,
              T0 + 1,
              new KeyOp[] {KeyOp.acquire(1)});

      assertThat(result.outcome().decision(0).allowed()).as(algorithm.wireName()).isFalse();
    }
  }

  @Test
  void decide_stateOfAnUnknownFormerPolicy_startsAfreshAndSaysSo() {
    CompiledPolicy former = compiled(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1));
    long[] values = former.algorithm().newState();
    former.algorithm().apply(values, T0, 5);
    CompiledPolicy policy = compiled(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(10));

    KeyDecision.Result result =
        KeyDecision.decide(
            policy,
            new StoredState(former.fingerprint(), values),
            fp -> null,
            T0 + 1,
            new KeyOp[] {KeyOp.acquire(1)});

    assertThat(result.forgotten()).isTrue();
    assertThat(result.outcome().decision(0).remaining()).isEqualTo(4);
  }

  /**
   * A state that keeps its writer (an inline policy under a state name) is carried over by that
   * policy when nothing else knows it: CL.THROTTLE's burst 2, 3 per minute exhausted, then called
   * with 3 per 2 minutes: the three admitted still count, so nothing more is admitted now. The
   * state written keeps the new policy as its writer.
   */
  @Test
  void decide_stateThatKeepsItsWriter_isCarriedOverByIt_andKeepsTheNewWriter() {
    CompiledPolicy former = gcra(3, Duration.ofMinutes(1), 2);
    long[] values = former.algorithm().newState();
    assertThat(former.algorithm().apply(values, T0, 3).allowed()).isTrue();
    StoredState stored =
        new StoredState(
            former.fingerprint(),
            values,
            ReservationLedger.EMPTY,
            SpentReceipts.EMPTY,
            former.policy());
    CompiledPolicy slower = gcra(3, Duration.ofMinutes(2), 2);

    KeyDecision.Result result =
        KeyDecision.decide(
            slower, stored, fp -> null, T0 + 1, new KeyOp[] {KeyOp.acquire(1)}, true);

    assertThat(result.forgotten()).isFalse();
    assertThat(result.outcome().decision(0).allowed()).isFalse();
    assertThat(result.written()).isNotNull();
    assertThat(result.written().writer()).isEqualTo(slower.policy());
    assertThat(result.written().fingerprint()).isEqualTo(slower.fingerprint());

    KeyDecision.Result forgetting =
        KeyDecision.decide(
            slower,
            new StoredState(former.fingerprint(), values),
            fp -> null,
            T0 + 1,
            new KeyOp[] {KeyOp.acquire(1)},
            true);
    assertThat(forgetting.forgotten()).as("without its writer, nothing can carry it").isTrue();
    assertThat(forgetting.outcome().decision(0).allowed()).isTrue();
  }

  /** A decision asked not to keep its writer writes none: a rule's and an inline identity's. */
  @Test
  void decide_withoutStoresPolicy_writesNoWriter() {
    CompiledPolicy policy = gcra(3, Duration.ofMinutes(1), 2);
    KeyDecision.Result result =
        KeyDecision.decide(policy, null, fp -> null, T0, new KeyOp[] {KeyOp.acquire(1)});
    assertThat(result.written()).isNotNull();
    assertThat(result.written().writer()).isNull();
  }

  private static CompiledPolicy gcra(long limit, Duration window, long burst) {
    return CompiledPolicy.of(
        Policy.builder()
            .algorithm(Algorithm.GCRA)
            .limit(limit)
            .window(window)
            .burst(burst)
            .build());
  }

  @Test
  void decide_singleLimitIntoASetContainingIt_theAdmittedStillCount() {
    Limit perMinute = Limit.of(5, Duration.ofMinutes(1));
    CompiledPolicy former = CompiledPolicy.of(new Policy(perMinute));
    long[] values = former.algorithm().newState();
    former.algorithm().apply(values, T0, 5);
    CompiledPolicy policy =
        CompiledPolicy.of(
            new Policy(List.of(Limit.of(2, Duration.ofSeconds(1)), perMinute), false, false));

    KeyDecision.Result result =
        KeyDecision.decide(
            policy,
            new StoredState(former.fingerprint(), values),
            fp -> fp == former.fingerprint() ? former : null,
            T0 + MINUTE / 2,
            new KeyOp[] {KeyOp.acquire(1)});

    Decision decision = result.outcome().decision(0);
    assertThat(decision.allowed()).isFalse();
    assertThat(decision.limit()).isEqualTo(5);
  }

  /**
   * A holder renews a lease ahead of its end with an acquire of 0 permits that asks for a lease:
   * the grant must be written, or the owner would hand out permits it never counted.
   */
  @Test
  void decide_leaseOnlyAcquire_grantsTheLeaseAndStoresIt() {
    CompiledPolicy policy = compiled(Algorithm.SLIDING_WINDOW, 100, Duration.ofMinutes(1));

    KeyDecision.Result result =
        KeyDecision.decide(
            policy,
            null,
            fp -> null,
            T0 + 1,
            new KeyOp[] {KeyOp.acquireWithLease(0, 40, Duration.ofMillis(100).toNanos())});

    assertThat(result.outcome().leased(0)).isEqualTo(40);
    assertThat(result.written()).isNotNull();
    long[] counted = result.written().values().clone();
    Decision next = policy.algorithm().apply(counted, T0 + 2, 61);
    assertThat(next.allowed()).as("the 40 leased permits count at the owner").isFalse();
    assertThat(policy.algorithm().apply(counted, T0 + 2, 60).allowed()).isTrue();
  }

  private static CompiledPolicy compiled(Algorithm algorithm, long limit, Duration window) {
    return CompiledPolicy.of(
        Policy.builder().algorithm(algorithm).limit(limit).window(window).build());
  }
}
