package dev.sluice.core.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.core.Algorithm;
import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReceiptKey;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationException;
import dev.sluice.core.ReservationId;
import dev.sluice.core.Rule;
import dev.sluice.core.UnknownRuleException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The behaviour every {@link RateLimiter} runtime shares: the local limiter, the grid through an
 * embedded member or a client, the client SDK and the REST API over HTTP each extend this class and
 * must pass it unchanged.
 *
 * <p>A subclass supplies the limiter under test and the {@link ManualTimeSource} that drives its
 * clock (for the grid, the members' clock), set up before each test (a {@code @BeforeEach} in the
 * subclass runs after {@link #nameThisTest}, which needs neither). The clock only moves forward.
 * Tests define the rules they need through {@code limiter().rules().put(...)} under names unique to
 * the test and use unique keys, so one shared cluster can run the whole suite without resetting
 * anything.
 *
 * <p>Timelines are asserted in whole milliseconds ({@link Decision#retryAfterMillis()}), which is
 * what every surface carries, and use windows whose arithmetic is exact in milliseconds.
 */
public abstract class RateLimiterContract {
  private static final AtomicLong SEQUENCE = new AtomicLong();

  private String prefix = "";

  /** The limiter under test. */
  protected abstract RateLimiter limiter();

  /** The clock the limiter under test decides with. */
  protected abstract ManualTimeSource clock();

  @BeforeEach
  final void nameThisTest() {
    prefix =
        "c"
            + SEQUENCE.incrementAndGet()
            + "-"
            + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  // ---------------------------------------------------------------- per-algorithm timelines

  @Test
  void slidingWindow_fivePerTenSeconds_followsTheDesignTimeline() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 5, Duration.ofSeconds(10)));
    String key = key("user");
    alignTo(Duration.ofSeconds(10));

    for (int second : new int[] {0, 2, 4, 6, 8}) {
      atSecondOfWindow(second, Duration.ofSeconds(10));
      assertThat(acquire(rule, key).allowed()).as("t=%ds", second).isTrue();
    }
    Decision sixth = acquire(rule, key);
    assertThat(sixth.allowed()).isFalse();
    assertThat(sixth.remaining()).isZero();
    assertThat(sixth.retryAfterMillis()).isPositive();

    // t=12s: the previous window weighs 0.8, floor(5 * 0.8) + 0 = 4, so one more fits.
    clock().advance(Duration.ofSeconds(4));
    Decision atTwelve = acquire(rule, key);
    assertThat(atTwelve.allowed()).isTrue();
    assertThat(atTwelve.remaining()).isZero();
    assertThat(acquire(rule, key).allowed()).isFalse();
  }

  @Test
  void slidingWindow_sevenPerMinute_allowsAtThirtyPercentThenDenies() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 7, Duration.ofMinutes(1)));
    String key = key("user");
    alignTo(Duration.ofMinutes(1));
    acquireAll(rule, key, 5);
    clock().advance(Duration.ofSeconds(77)); // 17 s into the next window: floor(5 * 43/60) = 3
    acquireAll(rule, key, 3);

    clock().advance(Duration.ofSeconds(1)); // 30 % into the window: floor(5 * 0.7) + 3 = 6
    assertThat(acquire(rule, key).allowed()).isTrue();
    assertThat(acquire(rule, key).allowed()).isFalse();
  }

  @Test
  void fixedWindow_boundaryBurst_admitsTwiceTheLimitAcrossTheBoundary() {
    String fixed = rule(policy(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1)));
    String sliding = rule(policy(Algorithm.SLIDING_WINDOW, 5, Duration.ofMinutes(1)));
    String key = key("attacker");
    alignTo(Duration.ofMinutes(1));
    clock().advance(Duration.ofSeconds(59));

    assertThat(countAllowed(fixed, key, 5)).isEqualTo(5);
    assertThat(countAllowed(sliding, key, 5)).isEqualTo(5);
    assertThat(acquire(fixed, key).allowed()).isFalse();

    clock().advance(Duration.ofSeconds(1)); // 11:01:00
    assertThat(countAllowed(fixed, key, 5)).as("fixed_window").isEqualTo(5);
    assertThat(countAllowed(sliding, key, 5)).as("sliding_window").isZero();
  }

  @Test
  void slidingLog_threePerTenSeconds_isExact() {
    String rule = rule(policy(Algorithm.SLIDING_LOG, 3, Duration.ofSeconds(10)));
    String key = key("user");
    for (int i = 0; i < 3; i++) {
      assertThat(acquire(rule, key).allowed()).isTrue();
      clock().advance(Duration.ofSeconds(4));
    }
    // t=12s: admitted at 0, 4 and 8; the one at 0 has left the trailing 10 s.
    Decision atTwelve = acquire(rule, key);
    assertThat(atTwelve.allowed()).isTrue();
    Decision denied = acquire(rule, key);
    assertThat(denied.allowed()).isFalse();
    // The oldest admission inside the window was at 4 s; it leaves at 14 s, 2 s from now.
    assertThat(denied.retryAfterMillis()).isEqualTo(2_000);
    clock().advance(Duration.ofMillis(denied.retryAfterMillis()));
    assertThat(acquire(rule, key).allowed()).isTrue();
  }

  @Test
  void slidingBuckets_neverAdmitsMoreThanTheLimitInAnyWindow() {
    String rule =
        rule(
            Policy.builder()
                .algorithm(Algorithm.SLIDING_BUCKETS)
                .limit(4)
                .window(Duration.ofSeconds(4))
                .buckets(4)
                .build());
    String key = key("user");
    alignTo(Duration.ofSeconds(1));
    clock().advance(Duration.ofMillis(500));

    assertThat(countAllowed(rule, key, 6)).isEqualTo(4);
    // 3.5 s later the bucket [0 s, 1 s) still overlaps the trailing window (0 s, 4 s] and counts
    // whole: still nothing left.
    clock().advance(Duration.ofMillis(3_500));
    assertThat(acquire(rule, key).allowed()).isFalse();
    // At 5 s the trailing window (1 s, 5 s] no longer touches it.
    clock().advance(Duration.ofSeconds(1));
    assertThat(countAllowed(rule, key, 6)).isEqualTo(4);
  }

  @Test
  void tokenBucket_burstThenContinuousRefill() {
    String rule =
        rule(
            Policy.builder()
                .algorithm(Algorithm.TOKEN_BUCKET)
                .limit(10)
                .window(Duration.ofSeconds(10))
                .burst(5)
                .build());
    String key = key("user");

    assertThat(countAllowed(rule, key, 5)).isEqualTo(5);
    Decision denied = acquire(rule, key);
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.limit()).isEqualTo(5);
    assertThat(denied.retryAfterMillis()).isEqualTo(1_000); // one token per second
    assertThat(denied.resetAfterMillis()).isEqualTo(5_000);

    clock().advance(Duration.ofSeconds(1));
    assertThat(acquire(rule, key).allowed()).isTrue();
    assertThat(acquire(rule, key).allowed()).isFalse();
    clock().advance(Duration.ofSeconds(3));
    assertThat(countAllowed(rule, key, 5)).isEqualTo(3);
  }

  @Test
  void gcra_redisCellFirstReply() {
    // CL.THROTTLE user123 15 30 60 1 -> allowed, limit 16, remaining 15, reset after 2 s.
    String rule =
        rule(
            Policy.builder()
                .algorithm(Algorithm.GCRA)
                .limit(30)
                .window(Duration.ofSeconds(60))
                .burst(15)
                .build());
    String key = key("user123");

    Decision first = acquire(rule, key);
    assertThat(first.allowed()).isTrue();
    assertThat(first.limit()).isEqualTo(16);
    assertThat(first.remaining()).isEqualTo(15);
    assertThat(first.retryAfterMillis()).isZero();
    assertThat(first.resetAfterMillis()).isEqualTo(2_000);

    assertThat(countAllowed(rule, key, 20)).isEqualTo(15);
    Decision denied = acquire(rule, key);
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.retryAfterMillis()).isEqualTo(2_000); // one emission interval, T = 2 s
    clock().advance(Duration.ofSeconds(2));
    assertThat(acquire(rule, key).allowed()).isTrue();
  }

  @Test
  void leakyBucket_admittedRequestsWaitTheirTurn() {
    String rule =
        rule(
            Policy.builder()
                .algorithm(Algorithm.LEAKY_BUCKET)
                .limit(10)
                .window(Duration.ofSeconds(1))
                .burst(3)
                .build());
    String key = key("worker");

    Decision first = acquire(rule, key);
    assertThat(first.allowed()).isTrue();
    assertThat(first.delayMillis()).isZero();
    Decision second = acquire(rule, key);
    assertThat(second.allowed()).isTrue();
    assertThat(second.delayMillis()).isEqualTo(100); // T = 1 s / 10
    Decision third = acquire(rule, key);
    assertThat(third.delayMillis()).isEqualTo(200);

    List<Decision> more = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      more.add(acquire(rule, key));
    }
    assertThat(more).anyMatch(d -> !d.allowed());
    Decision denied = more.stream().filter(d -> !d.allowed()).findFirst().orElseThrow();
    assertThat(denied.retryAfterMillis()).isPositive();
    clock().advance(Duration.ofMillis(denied.retryAfterMillis()));
    assertThat(acquire(rule, key).allowed()).isTrue();
  }

  /** Every algorithm: a fresh key admits, runs out, and admits again after {@code retryAfter}. */
  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void anyAlgorithm_exhaustedThenRetryAfter_admitsAgain(Algorithm algorithm) {
    String rule = rule(policy(algorithm, 4, Duration.ofSeconds(2)));
    String key = key("user");

    Decision first = acquire(rule, key);
    assertThat(first.allowed()).isTrue();
    assertThat(first.remaining()).isLessThan(first.limit());
    Decision last = first;
    int admitted = 1;
    while (last.allowed() && admitted < 100) {
      last = acquire(rule, key);
      admitted += last.allowed() ? 1 : 0;
    }
    assertThat(last.allowed()).as("denied after %d", admitted).isFalse();
    assertThat(admitted).isBetween(4, 5);
    assertThat(last.remaining()).isGreaterThanOrEqualTo(0);
    assertThat(last.retryAfterMillis()).isPositive();

    clock().advance(Duration.ofMillis(last.retryAfterMillis()));
    assertThat(acquire(rule, key).allowed()).isTrue();
  }

  /** Every algorithm: waiting {@code resetAfter} brings the key back to full capacity. */
  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void anyAlgorithm_afterResetAfter_isBackToFullCapacity(Algorithm algorithm) {
    String rule = rule(policy(algorithm, 4, Duration.ofSeconds(2)));
    String key = key("user");
    long fullRemaining = peek(rule, key).remaining();

    acquire(rule, key);
    Decision last = acquire(rule, key);
    clock().advance(Duration.ofMillis(last.resetAfterMillis()));

    assertThat(peek(rule, key).remaining()).isEqualTo(fullRemaining);
  }

  // ---------------------------------------------------------------- policies and rules

  @Test
  void inlinePolicy_countsUnderItsOwnNamespace() {
    Policy twoPerSecond = policy(Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(1));
    String rule = rule(twoPerSecond);
    String key = key("inline");
    alignTo(Duration.ofSeconds(1));

    assertThat(limiter().tryAcquire(twoPerSecond, key, 1).allowed()).isTrue();
    assertThat(limiter().tryAcquire(twoPerSecond, key, 1).allowed()).isTrue();
    Decision third = limiter().tryAcquire(twoPerSecond, key, 1);
    assertThat(third.allowed()).isFalse();
    assertThat(third.limit()).isEqualTo(2);
    // The same subject under a named rule is another key.
    assertThat(acquire(rule, key).allowed()).isTrue();
  }

  @Test
  void shadowRule_wouldBeDenial_isAllowedAndFlagged() {
    String rule =
        rule(
            Policy.builder()
                .algorithm(Algorithm.SLIDING_WINDOW)
                .limit(1)
                .window(Duration.ofSeconds(10))
                .shadow(true)
                .build());
    String key = key("user");

    Decision first = acquire(rule, key);
    assertThat(first.allowed()).isTrue();
    assertThat(first.shadowDenied()).isFalse();
    Decision second = acquire(rule, key);
    assertThat(second.allowed()).isTrue();
    assertThat(second.shadowDenied()).isTrue();
    assertThat(second.remaining()).isZero();
    assertThat(second.retryAfterMillis()).isZero();
  }

  @Test
  void shadowRule_costAboveItsCapacity_isAllowedFlaggedAndCountsNothing() {
    for (Algorithm algorithm : Algorithm.values()) {
      Policy shadow = policy(algorithm, 20, Duration.ofMinutes(1)).withShadow(true);
      String rule = rule(shadow);
      String key = key("shadow-over-" + algorithm.wireName());
      long capacity = peek(rule, key).remaining();

      // envoyproxy/ratelimit's shadow mode: 20 per minute and 25 hits at once is still OK.
      Decision above = limiter().tryAcquire(rule, key, capacity + 5);
      assertThat(above.allowed()).as(algorithm.wireName()).isTrue();
      assertThat(above.shadowDenied()).as(algorithm.wireName()).isTrue();
      assertThat(above.retryAfterMillis()).isZero();
      Decision inline = limiter().tryAcquire(shadow, key, capacity + 5);
      assertThat(inline.allowed() && inline.shadowDenied()).as(algorithm.wireName()).isTrue();

      assertThat(peek(rule, key).remaining()).as(algorithm.wireName()).isEqualTo(capacity);
    }
  }

  @Test
  void shadowBanRule_denial_staysADenialMarkedShadowBanned() {
    Policy invites =
        Policy.builder()
            .algorithm(Algorithm.SLIDING_WINDOW)
            .limit(1)
            .window(Duration.ofSeconds(10))
            .onDenied(Policy.OnDenied.SHADOW_BAN)
            .build();
    String rule = rule(invites);
    String key = key("spammer");

    Decision first = acquire(rule, key);
    assertThat(first.allowed()).isTrue();
    assertThat(first.shadowBanned()).isFalse();
    Decision second = acquire(rule, key);
    assertThat(second.allowed()).as("the limit holds: a ban is a denial").isFalse();
    assertThat(second.shadowBanned()).isTrue();
    assertThat(second.retryAfterMillis()).isPositive();
    assertThat(limiter().peek(rule, key).shadowBanned()).as("a peek bans nobody").isFalse();
    // An inline policy says it the same way.
    String inlineKey = key("inline-spammer");
    assertThat(limiter().tryAcquire(invites, inlineKey, 1).shadowBanned()).isFalse();
    assertThat(limiter().tryAcquire(invites, inlineKey, 1).shadowBanned()).isTrue();
  }

  @Test
  void countDenied_keepsAHammeringClientLimited() {
    Policy lenient = policy(Algorithm.SLIDING_WINDOW, 2, Duration.ofSeconds(10));
    Policy penalty =
        Policy.builder()
            .algorithm(Algorithm.SLIDING_WINDOW)
            .limit(2)
            .window(Duration.ofSeconds(10))
            .countDenied(true)
            .build();
    String lenientRule = rule(lenient);
    String penaltyRule = rule(penalty);
    String key = key("hammer");
    alignTo(Duration.ofSeconds(10));

    assertThat(countAllowed(lenientRule, key, 6)).isEqualTo(2);
    assertThat(countAllowed(penaltyRule, key, 6)).isEqualTo(2);
    // Halfway through the next window: the lenient key counted 2, weighing floor(2 * 0.5) = 1;
    // the penalty key counted all 6 attempts, weighing floor(6 * 0.5) = 3 > 2.
    clock().advance(Duration.ofSeconds(15));
    assertThat(acquire(lenientRule, key).allowed()).isTrue();
    assertThat(acquire(penaltyRule, key).allowed()).isFalse();
  }

  @Test
  void limitChange_keepsTheCounters() {
    String name = name("tuned");
    limiter().rules().put(new Rule(name, policy(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(1))));
    String key = key("user");
    acquireAll(name, key, 3);

    limiter().rules().put(new Rule(name, policy(Algorithm.SLIDING_LOG, 10, Duration.ofMinutes(1))));

    Decision next = acquire(name, key);
    assertThat(next.limit()).isEqualTo(10);
    assertThat(next.remaining()).isEqualTo(10 - 3 - 1);
  }

  /**
   * A rule that changes its window, algorithm or list of limits carries each key's state over: the
   * new rule never hands a key a fresh budget for what the old one already admitted. Tightening a
   * rule during an attack must not re-admit the attacker.
   */
  @Test
  void windowOrAlgorithmChange_carriesOverWhatWasAdmitted() {
    String name = name("reshaped");
    limiter()
        .rules()
        .put(new Rule(name, policy(Algorithm.SLIDING_WINDOW, 3, Duration.ofMinutes(1))));
    String key = key("user");
    acquireAll(name, key, 3);
    assertThat(acquire(name, key).allowed()).isFalse();

    // 3 per 2 minutes is stricter: the three admitted still count.
    limiter()
        .rules()
        .put(new Rule(name, policy(Algorithm.SLIDING_WINDOW, 3, Duration.ofMinutes(2))));
    assertThat(acquire(name, key).allowed()).as("after the window change").isFalse();

    limiter().rules().put(new Rule(name, policy(Algorithm.SLIDING_LOG, 3, Duration.ofHours(1))));
    assertThat(acquire(name, key).allowed()).as("after the algorithm change").isFalse();

    limiter()
        .rules()
        .put(
            new Rule(
                name,
                Policy.builder()
                    .algorithm(Algorithm.FIXED_WINDOW)
                    .limit(3)
                    .window(Duration.ofHours(1))
                    .and(Limit.of(100, Duration.ofDays(1)))
                    .build()));
    assertThat(acquire(name, key).allowed()).as("after gaining a second limit").isFalse();
  }

  /** A larger limit on the same shape keeps the counts and admits the difference. */
  @Test
  void windowChange_toALooserRule_admitsOnlyWhatTheNewRuleLeaves() {
    String name = name("loosened");
    limiter().rules().put(new Rule(name, policy(Algorithm.SLIDING_LOG, 3, Duration.ofMinutes(1))));
    String key = key("user");
    acquireAll(name, key, 3);

    limiter().rules().put(new Rule(name, policy(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(2))));
    assertThat(countAllowed(name, key, 5)).isEqualTo(2);
  }

  /**
   * Each inline policy on a subject has its own state: two limits on one user (2 per 10 s and 3 per
   * minute), sent alternately, each limits on its own.
   */
  @Test
  void inlinePolicies_onOneKey_eachLimitsOnItsOwn() {
    Policy shortWindow = Policy.of(2, Duration.ofSeconds(10));
    Policy longWindow = Policy.of(3, Duration.ofMinutes(1));
    String key = key("u1");
    List<Boolean> allowed = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      allowed.add(limiter().tryAcquire(shortWindow, key, 1).allowed());
      allowed.add(limiter().tryAcquire(longWindow, key, 1).allowed());
    }
    assertThat(allowed)
        .containsExactly(
            true, true, true, true, false, true, false, false, false, false, false, false);

    Policy gcra =
        Policy.builder().algorithm(Algorithm.GCRA).limit(2).window(Duration.ofSeconds(10)).build();
    assertThat(limiter().tryAcquire(gcra, key, 1).allowed())
        .as("the same window under another algorithm is another policy")
        .isTrue();
  }

  @Test
  void inlineKey_peekAndReset() {
    Policy policy = Policy.of(3, Duration.ofMinutes(1));
    PolicyRef ref = PolicyRef.inline(policy);
    String key = key("inline");
    limiter().tryAcquire(policy, key, 2);

    assertThat(limiter().peek(ref, key).remaining()).isEqualTo(1);
    limiter().reset(ref, key);
    assertThat(limiter().peek(ref, key).remaining()).isEqualTo(3);
    assertThat(
            limiter().peek(PolicyRef.inline(Policy.of(4, Duration.ofMinutes(1))), key).remaining())
        .as("another policy's state")
        .isEqualTo(4);
  }

  // ---------------------------------------------------------------- inline under a state name

  /**
   * Whether this runtime carries an inline policy's state name ({@link PolicyRef#inlineUnder}). The
   * REST API has no field for one: it answers inline checks under their own state, so its runtimes
   * say false and skip these tests.
   */
  protected boolean carriesStateNames() {
    return true;
  }

  /** A gcra policy whose answers are the owner's alone (no lease), so that counts are exact. */
  private static Policy gcra(long limit, Duration window, long burst) {
    return Policy.builder()
        .algorithm(Algorithm.GCRA)
        .limit(limit)
        .window(window)
        .burst(burst)
        .leases(Policy.Leases.OFF)
        .build();
  }

  /**
   * One state per (state name, key) whatever the parameters, as a redis-cell key: gcra 3 per
   * minute, burst 2, exhausted; the same key called with 3 per 2 minutes finds the three admitted
   * still counting (carried over, as a rule's change would), where an inline policy of its own
   * starts afresh. Time then frees the new policy's emission interval.
   */
  @Test
  void inlineUnderAStateName_otherParameters_carryTheStateOver() {
    assumeTrue(carriesStateNames(), "this runtime has no way to carry a state name");
    Policy perMinute = gcra(3, Duration.ofMinutes(1), 2);
    Policy perTwoMinutes = gcra(3, Duration.ofMinutes(2), 2);
    PolicyRef first = PolicyRef.inlineUnder(name("redis"), perMinute);
    PolicyRef second = PolicyRef.inlineUnder(name("redis"), perTwoMinutes);
    String key = key("user123");
    for (int i = 0; i < 3; i++) {
      assertThat(limiter().tryAcquire(new Check(first, key, 1)).allowed()).isTrue();
    }

    Decision slower = limiter().tryAcquire(new Check(second, key, 1));

    assertThat(slower.allowed()).as("the three admitted still count").isFalse();
    assertThat(slower.limit()).isEqualTo(3);
    assertThat(slower.remaining()).isZero();
    assertThat(slower.retryAfterMillis())
        .as("one emission interval of the new policy")
        .isEqualTo(40_000);
    assertThat(limiter().tryAcquire(perTwoMinutes, key, 1).allowed())
        .as("an inline policy of its own has a state of its own")
        .isTrue();

    clock().advance(Duration.ofSeconds(40));
    Decision later = limiter().tryAcquire(new Check(second, key, 1));
    assertThat(later.allowed()).isTrue();
    assertThat(later.remaining()).isZero();
  }

  /** Two state names keep apart; peek and reset reach the state whatever parameters they carry. */
  @Test
  void inlineUnderAStateName_namesKeepApart_peekAndResetWithAnyParameters() {
    assumeTrue(carriesStateNames(), "this runtime has no way to carry a state name");
    Policy perMinute = gcra(3, Duration.ofMinutes(1), 2);
    PolicyRef redis = PolicyRef.inlineUnder(name("redis"), perMinute);
    PolicyRef other = PolicyRef.inlineUnder(name("other"), perMinute);
    String key = key("user");
    for (int i = 0; i < 3; i++) {
      assertThat(limiter().tryAcquire(new Check(redis, key, 1)).allowed()).isTrue();
    }
    assertThat(limiter().tryAcquire(new Check(other, key, 1)).allowed())
        .as("another state name is another state")
        .isTrue();

    PolicyRef wider = PolicyRef.inlineUnder(name("redis"), gcra(6, Duration.ofMinutes(1), 5));
    assertThat(limiter().peek(wider, key).remaining())
        .as("the three admitted, seen under a limit of six")
        .isEqualTo(3);
    limiter().reset(wider, key);
    assertThat(limiter().peek(redis, key).remaining()).isEqualTo(3);
  }

  /** A reservation under a state name names its state in its id: the id alone commits it. */
  @Test
  void inlineUnderAStateName_reservationIsCommittedByItsIdAlone() {
    assumeTrue(carriesStateNames(), "this runtime has no way to carry a state name");
    PolicyRef ref = PolicyRef.inlineUnder(name("redis"), gcra(3, Duration.ofMinutes(1), 2));
    String key = key("tokens");

    Reservation reservation = limiter().reserve(new Check(ref, key, 2), Duration.ofMinutes(1));

    assertThat(reservation.id()).isNotNull();
    assertThat(ReservationId.parse(reservation.id()).ref()).isEqualTo(ref);
    assertThat(limiter().commit(reservation.id(), 0).remaining()).isEqualTo(3);
  }

  /**
   * A receipt under a state name names its state (the name travels in it, as in a reservation's
   * id): parsed back from its text it gives the admission back once, on the one state, even after a
   * call with other parameters carried that state over.
   */
  @Test
  void inlineUnderAStateName_receiptNamesItsState_andGivesBackOnce() {
    assumeTrue(carriesStateNames(), "this runtime has no way to carry a state name");
    PolicyRef ref = PolicyRef.inlineUnder(name("redis"), gcra(3, Duration.ofMinutes(1), 2));
    PolicyRef wider = PolicyRef.inlineUnder(name("redis"), gcra(6, Duration.ofMinutes(1), 5));
    String key = key("refund");
    Decision taken = limiter().tryAcquire(new Check(ref, key, 2));
    assertThat(taken.receipt()).isNotNull();
    Receipt receipt = Receipt.parse(taken.receipt().encode());
    assertThat(receipt.ref()).isEqualTo(ref);
    assertThat(limiter().tryAcquire(new Check(wider, key, 1)).remaining())
        .as("the two admitted count under other parameters too")
        .isEqualTo(3);

    assertThat(limiter().release(receipt).remaining()).isEqualTo(2);
    assertThat(limiter().peek(wider, key).remaining())
        .as("one state: the two are back")
        .isEqualTo(5);
    assertThatThrownBy(() -> limiter().release(receipt))
        .isInstanceOfSatisfying(
            ReleaseException.class,
            e -> assertThat(e.reason()).isEqualTo(ReleaseException.Reason.SPENT));
  }

  /**
   * In a batch and in calls sent without waiting, each call on a key under a state name is decided
   * under its own parameters, in order: gcra 10 per second (burst 9) twice, then 1 per second
   * (burst 0), which finds the two admitted and denies, then 10 per second again.
   */
  @Test
  void inlineUnderAStateName_batchAndAsync_decideEachCallUnderItsOwnParameters() throws Exception {
    assumeTrue(carriesStateNames(), "this runtime has no way to carry a state name");
    PolicyRef fast = PolicyRef.inlineUnder(name("redis"), gcra(10, Duration.ofSeconds(1), 9));
    PolicyRef slow = PolicyRef.inlineUnder(name("redis"), gcra(1, Duration.ofSeconds(1), 0));
    for (boolean batch : new boolean[] {true, false}) {
      String key = key(batch ? "batch" : "async");
      List<Check> checks =
          List.of(
              new Check(fast, key, 1),
              new Check(fast, key, 1),
              new Check(slow, key, 1),
              new Check(fast, key, 1));
      List<Decision> decided = new ArrayList<>();
      if (batch) {
        decided.addAll(limiter().tryAcquireAll(checks));
      } else {
        List<CompletionStage<Decision>> sent = new ArrayList<>();
        for (Check check : checks) {
          sent.add(limiter().tryAcquireAsync(check));
        }
        for (CompletionStage<Decision> answer : sent) {
          decided.add(await(answer));
        }
      }

      assertThat(decided).extracting(Decision::allowed).containsExactly(true, true, false, true);
      assertThat(decided).extracting(Decision::limit).containsExactly(10L, 10L, 1L, 10L);
      assertThat(decided).extracting(Decision::remaining).containsExactly(9L, 8L, 0L, 7L);
    }
  }

  /** LimitSet's worked example: 10 per second and 15 per minute. */
  @Test
  void severalLimits_admittedOnlyIfAllAdmit_andADenialCountsInNone() {
    Policy both =
        Policy.builder()
            .algorithm(Algorithm.SLIDING_LOG)
            .limit(10)
            .window(Duration.ofSeconds(1))
            .and(
                Limit.builder()
                    .algorithm(Algorithm.SLIDING_LOG)
                    .limit(15)
                    .window(Duration.ofMinutes(1))
                    .build())
            .build();
    String name = rule(both);
    String key = key("user");
    alignTo(Duration.ofMinutes(1));

    acquireAll(name, key, 10);
    Decision eleventh = acquire(name, key);
    assertThat(eleventh.allowed()).as("denied by the per-second limit").isFalse();
    assertThat(eleventh.limit()).isEqualTo(10);
    assertThat(eleventh.retryAfterMillis()).isEqualTo(1_000);

    clock().advance(Duration.ofSeconds(1));
    Decision fifteenth = null;
    for (int i = 0; i < 5; i++) {
      fifteenth = acquire(name, key);
      assertThat(fifteenth.allowed()).as("request %d of the second second", i + 1).isTrue();
    }
    assertThat(fifteenth.remaining()).as("the minute limit binds").isZero();
    assertThat(fifteenth.limit()).isEqualTo(15);
    Decision sixteenth = acquire(name, key);
    assertThat(sixteenth.allowed()).isFalse();
    assertThat(sixteenth.limit()).isEqualTo(15);
    assertThat(sixteenth.retryAfterMillis())
        .as("until the first minute's permits leave")
        .isEqualTo(59_000);
  }

  @Test
  void severalLimits_costAboveTheSmallestLimit_isRefused() {
    Policy both =
        Policy.builder()
            .limit(3)
            .window(Duration.ofSeconds(1))
            .and(Limit.of(100, Duration.ofMinutes(1)))
            .build();
    assertThatThrownBy(() -> limiter().tryAcquire(both, key("user"), 4))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("cost");
    assertThat(limiter().peek(PolicyRef.inline(both), key("user")).remaining()).isEqualTo(3);
  }

  @Test
  void release_givesBackPermits_neverBeyondTheCapacity() {
    for (Algorithm algorithm : Algorithm.values()) {
      String name = rule(policy(algorithm, 4, Duration.ofMinutes(1)));
      String key = key("release-" + algorithm.wireName());
      alignTo(Duration.ofMinutes(1));
      long capacity = limiter().peek(name, key).remaining();
      limiter().tryAcquire(name, key, 3);

      Decision afterRelease = limiter().releaseWithoutProof(Check.of(name, key, 2));
      assertThat(afterRelease.remaining()).as(algorithm.wireName()).isEqualTo(capacity - 1);
      Decision beyond = limiter().releaseWithoutProof(Check.of(name, key, 4));
      assertThat(beyond.remaining()).as(algorithm.wireName() + " beyond").isEqualTo(capacity);
      assertThat(countAllowed(name, key, (int) capacity + 1))
          .as(algorithm.wireName() + " admits its capacity again, no more")
          .isEqualTo((int) capacity);
    }
  }

  @Test
  void release_unknownRuleOrCostAboveCapacity_isRefused() {
    String name = rule(policy(Algorithm.SLIDING_WINDOW, 4, Duration.ofMinutes(1)));
    assertThatThrownBy(() -> limiter().release(name("missing"), key("user"), 1))
        .isInstanceOf(UnknownRuleException.class);
    assertThatThrownBy(() -> limiter().release(name, key("user"), 5))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("cost");
    assertThatThrownBy(() -> limiter().releaseWithoutProof(Check.of(name, key("user"), 5)))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("cost");
  }

  // ---------------------------------------------------------------- giving permits back: proof

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void release_withItsReceipt_givesTheAdmissionBackOnce(Algorithm algorithm) {
    String rule = rule(policy(algorithm, 4, Duration.ofMinutes(1)));
    String key = key("receipt-" + algorithm.wireName());
    alignTo(Duration.ofMinutes(1));
    long capacity = peek(rule, key).remaining();
    Decision taken = limiter().tryAcquire(rule, key, 3);
    assertThat(taken.receipt()).as("an admission carries its receipt").isNotNull();
    assertThat(taken.receipt().permits()).isEqualTo(3);

    Decision given = limiter().release(taken.receipt());
    assertThat(given.remaining()).isEqualTo(capacity);
    assertThat(peek(rule, key).remaining()).isEqualTo(capacity);

    // The same receipt again, as the text it travels as: a replay frees nothing.
    acquireAll(rule, key, 2);
    ReleaseException replay =
        catchThrowableOfType(
            ReleaseException.class,
            () -> limiter().release(Receipt.parse(taken.receipt().encode())));
    assertThat(replay.reason()).isEqualTo(ReleaseException.Reason.SPENT);
    assertThat(peek(rule, key).remaining()).isEqualTo(capacity - 2);
  }

  @Test
  void release_bareCount_needsProofUnlessTheRuleIsOpen() {
    String proof = rule(policy(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1)));
    String open =
        rule(
            Policy.builder()
                .algorithm(Algorithm.FIXED_WINDOW)
                .limit(5)
                .window(Duration.ofMinutes(1))
                .release(Policy.Release.OPEN)
                .build());
    String key = key("bare");
    alignTo(Duration.ofMinutes(1));
    acquireAll(proof, key, 3);
    acquireAll(open, key, 3);

    ReleaseException refused =
        catchThrowableOfType(ReleaseException.class, () -> limiter().release(proof, key, 2));
    assertThat(refused.reason()).isEqualTo(ReleaseException.Reason.PROOF_REQUIRED);
    assertThat(peek(proof, key).remaining()).as("nothing freed").isEqualTo(2);

    assertThat(limiter().release(open, key, 2).remaining()).isEqualTo(4);
    assertThat(limiter().releaseWithoutProof(Check.of(proof, key, 2)).remaining()).isEqualTo(4);
  }

  @Test
  void release_alteredOrForeignReceipt_isNotIssuedHere_andFreesNothing() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 5, Duration.ofMinutes(1)));
    String key = key("forged");
    alignTo(Duration.ofMinutes(1));
    Receipt genuine = limiter().tryAcquire(rule, key, 1).receipt();
    acquireAll(rule, key, 3);

    // The same fields with a tag of another secret: what a caller without this one can make.
    Receipt forged =
        Receipt.issue(
            genuine.ref(),
            genuine.subject(),
            4,
            genuine.admittedAtNanos(),
            0,
            genuine.number(),
            ReceiptKey.random());
    // A genuine receipt with one byte of its content changed (the cost, 1 → 2).
    byte[] bytes = Base64.getUrlDecoder().decode(genuine.encode());
    bytes[8] ^= 3;
    Receipt altered = Receipt.parse(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    assertThat(altered.permits()).isEqualTo(2);

    for (Receipt receipt : List.of(forged, altered)) {
      ReleaseException refused =
          catchThrowableOfType(ReleaseException.class, () -> limiter().release(receipt));
      assertThat(refused.reason()).isEqualTo(ReleaseException.Reason.NOT_ISSUED_HERE);
    }
    assertThatThrownBy(() -> limiter().release(Receipt.parse("not-a-receipt")))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("receipt");
    assertThat(peek(rule, key).remaining()).as("nothing freed").isEqualTo(1);
  }

  @Test
  void release_receiptAfterItsWindow_isExpired_andFreesNothing() {
    String rule = rule(policy(Algorithm.TOKEN_BUCKET, 60, Duration.ofMinutes(1)));
    String key = key("late");
    alignTo(Duration.ofMinutes(1));
    clock().advance(Duration.ofSeconds(50));
    Receipt receipt = limiter().tryAcquire(rule, key, 30).receipt();
    clock().advance(Duration.ofSeconds(10)); // the next minute: its window has ended
    long remaining = peek(rule, key).remaining();

    ReleaseException late =
        catchThrowableOfType(ReleaseException.class, () -> limiter().release(receipt));
    assertThat(late.reason()).isEqualTo(ReleaseException.Reason.EXPIRED);
    assertThat(peek(rule, key).remaining()).isEqualTo(remaining);
  }

  @Test
  void release_receiptOfAConcurrencyPermit_freesThatPermitOnce() {
    String rule =
        rule(
            Policy.builder()
                .algorithm(Algorithm.CONCURRENCY)
                .limit(2)
                .window(Duration.ofMinutes(5))
                .build());
    String key = key("in-flight");
    Decision first = acquire(rule, key);
    acquire(rule, key);
    assertThat(first.receipt().number()).isEqualTo(first.permitId());

    assertThat(limiter().release(first.receipt()).remaining()).isEqualTo(1);
    assertThat(
            catchThrowableOfType(ReleaseException.class, () -> limiter().release(first.receipt()))
                .reason())
        .isEqualTo(ReleaseException.Reason.SPENT);
    assertThat(peek(rule, key).remaining()).isEqualTo(1);
  }

  @Test
  void receipts_onlyOnWhatWasTaken() {
    String rule = rule(policy(Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1)));
    String shadow = rule(policy(Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1)).withShadow(true));
    String key = key("what-was-taken");
    alignTo(Duration.ofMinutes(1));
    assertThat(limiter().tryAcquire(rule, key, 0).receipt()).as("a peek").isNull();
    assertThat(acquire(rule, key).receipt()).isNotNull();
    assertThat(acquire(rule, key).receipt()).as("a denial").isNull();
    acquire(shadow, key);
    assertThat(acquire(shadow, key).receipt()).as("a shadow rule's would-be denial").isNull();

    List<Check> batch = List.of(Check.of(rule, key("batch-a")), Check.of(rule, key));
    BatchOutcome all = limiter().tryAcquireAll(batch, BatchMode.ALL);
    assertThat(all.released()).containsExactly(0);
    assertThat(all.decisions().get(0).receipt()).as("given back by the batch").isNull();
    assertThat(limiter().tryAcquireAll(List.of(Check.of(rule, key("batch-b")))).get(0).receipt())
        .isNotNull();
  }

  @Test
  void batchModeAll_oneDenied_givesBackWhatTheOthersTook() {
    String name = rule(policy(Algorithm.SLIDING_WINDOW, 2, Duration.ofMinutes(1)));
    String full = key("full");
    acquireAll(name, full, 2);
    List<Check> checks =
        List.of(Check.of(name, key("a")), Check.of(name, full), Check.of(name, key("b"), 2));

    BatchOutcome outcome = limiter().tryAcquireAll(checks, BatchMode.ALL);

    assertThat(outcome.allowed()).isFalse();
    assertThat(outcome.deniedBy()).isEqualTo(1);
    assertThat(outcome.released()).containsExactlyInAnyOrder(0, 2);
    assertThat(peek(name, key("a")).remaining()).isEqualTo(2);
    assertThat(peek(name, key("b")).remaining()).isEqualTo(2);

    BatchOutcome admitted =
        limiter()
            .tryAcquireAll(
                List.of(Check.of(name, key("a")), Check.of(name, key("b"))), BatchMode.ALL);
    assertThat(admitted.allowed()).isTrue();
    assertThat(admitted.deniedBy()).isEqualTo(-1);
    assertThat(peek(name, key("a")).remaining()).isEqualTo(1);
  }

  @Test
  void unknownRule_isAnErrorForEveryOperation() {
    String missing = name("missing");
    String key = key("user");

    assertThatThrownBy(() -> limiter().tryAcquire(missing, key, 1))
        .isInstanceOf(UnknownRuleException.class)
        .hasMessageContaining(missing);
    assertThatThrownBy(() -> limiter().peek(missing, key)).isInstanceOf(UnknownRuleException.class);
    assertThatThrownBy(() -> limiter().reset(missing, key))
        .isInstanceOf(UnknownRuleException.class);
    assertFailsWith(
        () -> limiter().tryAcquireAsync(missing, key, 1), UnknownRuleException.class, missing);
  }

  // ---------------------------------------------------------------- cost and keys

  /** The rule argument of a call is named {@code rule} when it is not a rule name, as in REST. */
  @Test
  void badRuleName_isRefusedNamingTheRuleArgument() {
    String key = key("user");
    for (String bad : List.of("log in", "x".repeat(65))) {
      List<ThrowableAssert.ThrowingCallable> calls =
          List.of(
              () -> limiter().tryAcquire(bad, key, 1),
              () -> {
                try {
                  await(limiter().tryAcquireAsync(bad, key, 1));
                } catch (ExecutionException e) {
                  throw e.getCause();
                }
              },
              () -> limiter().peek(bad, key),
              () -> limiter().reset(bad, key),
              () -> limiter().tryAcquireAll(List.of(Check.of(bad, key))));
      for (ThrowableAssert.ThrowingCallable call : calls) {
        assertThatThrownBy(call)
            .isInstanceOfSatisfying(
                InvalidPolicyException.class,
                e -> {
                  assertThat(e.field()).isEqualTo("rule");
                  assertThat(e.getMessage()).startsWith("rule: rule names are 1 to 64 characters");
                });
      }
    }
  }

  @Test
  void costZero_isAPeekThatConsumesNothing() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 3, Duration.ofMinutes(1)));
    String key = key("user");

    for (int i = 0; i < 5; i++) {
      Decision zero = limiter().tryAcquire(rule, key, 0);
      assertThat(zero.allowed()).isTrue();
      assertThat(zero.remaining()).isEqualTo(3);
    }
    assertThat(acquire(rule, key).remaining()).isEqualTo(2);
  }

  @Test
  void peek_consumesNothing() {
    String rule = rule(policy(Algorithm.TOKEN_BUCKET, 3, Duration.ofMinutes(1)));
    String key = key("user");

    assertThat(peek(rule, key).remaining()).isEqualTo(3);
    assertThat(peek(rule, key).remaining()).isEqualTo(3);
    acquireAll(rule, key, 3);
    Decision exhausted = peek(rule, key);
    assertThat(exhausted.remaining()).isZero();
    assertThat(peek(rule, key)).isEqualTo(exhausted);
    assertThat(acquire(rule, key).allowed()).isFalse();
  }

  @Test
  void reset_givesTheKeyItsFullCapacityBack() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 2, Duration.ofMinutes(1)));
    String key = key("user");
    acquireAll(rule, key, 2);
    assertThat(acquire(rule, key).allowed()).isFalse();

    limiter().reset(rule, key);

    assertThat(peek(rule, key).remaining()).isEqualTo(2);
    assertThat(countAllowed(rule, key, 3)).isEqualTo(2);
  }

  @Test
  void costAboveCapacity_isRejectedAndNothingIsCounted() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 5, Duration.ofMinutes(1)));
    String key = key("user");

    assertThatThrownBy(() -> limiter().tryAcquire(rule, key, 6))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("cost"));
    assertThatThrownBy(() -> limiter().tryAcquire(rule, key, -1))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("cost"));

    assertThat(peek(rule, key).remaining()).isEqualTo(5);
    assertThat(limiter().tryAcquire(rule, key, 5).allowed()).isTrue();
  }

  @Test
  void key_of512BytesIsAccepted_513IsRejected() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 5, Duration.ofMinutes(1)));
    String twoByteChars = "é".repeat(256); // 512 bytes of UTF-8
    String ascii = "k".repeat(512);

    assertThat(acquire(rule, twoByteChars).allowed()).isTrue();
    assertThat(acquire(rule, ascii).allowed()).isTrue();
    assertThat(peek(rule, ascii).remaining()).isEqualTo(4);
    for (String tooLong : List.of(ascii + "k", twoByteChars + "k")) {
      assertThatThrownBy(() -> limiter().tryAcquire(rule, tooLong, 1))
          .isInstanceOfSatisfying(
              InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("key"));
    }
    assertThatThrownBy(() -> limiter().tryAcquire(rule, "", 1))
        .isInstanceOf(InvalidPolicyException.class);
  }

  /**
   * A key is text: an unpaired UTF-16 surrogate has no UTF-8 form, so it cannot be stored as is.
   * Encoders replace it with {@code ?} (two such keys would share one counter) or fail after the
   * rest of a batch was counted, so it is refused up front, alone and inside a batch.
   */
  @Test
  void key_withUnpairedSurrogate_isRejectedAndNothingIsCounted() {
    String rule = rule(policy(Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1)));
    String good = key("good");
    String pair = key("\uD83D\uDE00"); // U+1F600, a well-formed pair

    for (String bad : List.of("\uD800", key("x\uDC00y"), key("tail\uD83D"))) {
      assertThatThrownBy(() -> limiter().tryAcquire(rule, bad, 1))
          .isInstanceOfSatisfying(
              InvalidPolicyException.class,
              e -> {
                assertThat(e.field()).isEqualTo("key");
                assertThat(e.getMessage()).contains("surrogate");
              });
      assertThatThrownBy(
              () ->
                  limiter()
                      .tryAcquireAll(
                          List.of(Check.of(rule, good), Check.of(rule, bad), Check.of(rule, good))))
          .isInstanceOfSatisfying(
              InvalidPolicyException.class, e -> assertThat(e.field()).contains("key"));
    }

    assertThat(peek(rule, good).remaining()).as("nothing of the batches was counted").isEqualTo(2);
    assertThat(acquire(rule, pair).remaining()).isEqualTo(1);
    assertThat(peek(rule, pair).remaining()).isEqualTo(1);
  }

  // ---------------------------------------------------------------- batches and async

  @Test
  void batch_decidesInOrder_sameKeySeesEarlierChecks() {
    String rule = rule(policy(Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1)));
    String a = key("a");
    String b = key("b");
    alignTo(Duration.ofMinutes(1));

    List<Decision> decisions =
        limiter()
            .tryAcquireAll(
                List.of(
                    Check.of(rule, a),
                    Check.of(rule, b),
                    Check.of(rule, a),
                    Check.of(rule, a),
                    Check.of(rule, b, 0),
                    Check.inline(policy(Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1)), a, 1)));

    assertThat(decisions)
        .extracting(Decision::allowed)
        .containsExactly(true, true, true, false, true, true);
    assertThat(decisions).extracting(Decision::remaining).containsExactly(1L, 1L, 0L, 0L, 1L, 0L);
  }

  @Test
  void batch_withOneBadCheck_failsWholeAndCountsNothing() {
    String rule = rule(policy(Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1)));
    String key = key("user");

    assertThatThrownBy(
            () ->
                limiter()
                    .tryAcquireAll(
                        List.of(
                            Check.of(rule, key), Check.of(name("nope"), key), Check.of(rule, key))))
        .isInstanceOfSatisfying(
            UnknownRuleException.class, e -> assertThat(e.field()).isEqualTo("checks[1].rule"));
    assertThatThrownBy(
            () -> limiter().tryAcquireAll(List.of(Check.of(rule, key), Check.of(rule, key, 3))))
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("checks[1].cost"));

    assertThat(peek(rule, key).remaining()).isEqualTo(2);
  }

  @Test
  void batch_nullOrHoldingNull_isRefusedNamingChecksAndCountsNothing() {
    String rule = rule(policy(Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1)));
    String key = key("user");
    List<Check> holdingNull = Arrays.asList(Check.of(rule, key), null);

    assertThatThrownBy(() -> limiter().tryAcquireAll(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("checks");
    assertThatThrownBy(() -> limiter().tryAcquireAll(holdingNull))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("checks");
    assertFailsWith(() -> limiter().tryAcquireAllAsync(null), NullPointerException.class, "checks");
    assertFailsWith(
        () -> limiter().tryAcquireAllAsync(holdingNull), NullPointerException.class, "checks");

    assertThat(peek(rule, key).remaining()).isEqualTo(2);
  }

  @Test
  void async_answersAsSyncDoes() throws Exception {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 3, Duration.ofMinutes(1)));
    Policy inline = policy(Algorithm.GCRA, 3, Duration.ofMinutes(1));
    String syncKey = key("sync");
    String asyncKey = key("async");
    alignTo(Duration.ofMinutes(1));

    for (int i = 0; i < 5; i++) {
      assertThat(await(limiter().tryAcquireAsync(rule, asyncKey, 1)))
          .isEqualTo(limiter().tryAcquire(rule, syncKey, 1));
      assertThat(await(limiter().tryAcquireAsync(inline, asyncKey, 1)))
          .isEqualTo(limiter().tryAcquire(inline, syncKey, 1));
    }
    List<Check> checks = List.of(Check.of(rule, key("batch")), Check.of(rule, key("batch")));
    List<Decision> asyncBatch = await(limiter().tryAcquireAllAsync(checks));
    assertThat(asyncBatch).extracting(Decision::remaining).containsExactly(2L, 1L);
    assertFailsWith(
        () -> limiter().tryAcquireAsync(rule, syncKey, 4), InvalidPolicyException.class, "cost");
  }

  // ---------------------------------------------------------------- waits and permits in flight

  /**
   * Token bucket, 4 per 2 s (one token per 500 ms). t=0 ×4 admitted; a fifth that may wait 499 ms
   * is denied and books nothing; one that may wait 500 ms is booked with delay 500 ms; the next
   * plain request sees that debt (retryAfter 1000 ms); a wait of 1000 ms is booked with delay 1000.
   */
  @Test
  void maxWait_tokenBucket_isBookedExactlyWhenTheRuleAllows() {
    String rule = rule(policy(Algorithm.TOKEN_BUCKET, 4, Duration.ofSeconds(2)));
    String key = key("waiter");
    acquireAll(rule, key, 4);

    Decision tooShort = waitUpTo(rule, key, Duration.ofMillis(499));
    assertThat(tooShort.allowed()).isFalse();
    assertThat(tooShort.retryAfterMillis()).isEqualTo(500);
    Decision booked = waitUpTo(rule, key, Duration.ofMillis(500));
    assertThat(booked.allowed()).isTrue();
    assertThat(booked.delayMillis()).isEqualTo(500);

    Decision plain = acquire(rule, key);
    assertThat(plain.allowed()).isFalse();
    assertThat(plain.retryAfterMillis()).isEqualTo(1000);
    assertThat(waitUpTo(rule, key, Duration.ofMillis(999)).allowed()).isFalse();
    assertThat(waitUpTo(rule, key, Duration.ofMillis(1000)).delayMillis()).isEqualTo(1000);
  }

  /**
   * Fixed window, 2 per 10 s: t=0 ×2 admitted; a third that may wait 10 s is booked into the next
   * window (delay 10 s) and counts there: at t=10s one more fits, not two. A plain request before
   * the booked window waits for it: denied, retryAfter up to that window.
   */
  @Test
  void maxWait_fixedWindow_booksIntoTheWindowWhereItFits() {
    String rule = rule(policy(Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(10)));
    String key = key("waiter");
    alignTo(Duration.ofSeconds(10));
    acquireAll(rule, key, 2);
    clock().advance(Duration.ofSeconds(4));

    Decision booked = waitUpTo(rule, key, Duration.ofSeconds(10));
    assertThat(booked.allowed()).isTrue();
    assertThat(booked.delayMillis()).isEqualTo(6_000);
    Decision plain = acquire(rule, key);
    assertThat(plain.allowed()).isFalse();
    assertThat(plain.retryAfterMillis()).isEqualTo(6_000);

    clock().advance(Duration.ofSeconds(6));
    assertThat(countAllowed(rule, key, 3)).as("the next window holds the booking").isEqualTo(1);
  }

  /** Every algorithm: a wait too short for the permits is a denial that books nothing. */
  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void maxWait_tooShort_isDeniedAndBooksNothing(Algorithm algorithm) {
    String rule = rule(policy(algorithm, 3, Duration.ofMinutes(1)));
    String key = key("waiter");
    alignTo(Duration.ofMinutes(1));
    Decision last = acquire(rule, key);
    while (last.allowed()) {
      last = acquire(rule, key);
    }
    long before = peek(rule, key).remaining();

    Decision denied = waitUpTo(rule, key, Duration.ofMillis(1));
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.retryAfterMillis()).isGreaterThan(1);
    assertThat(peek(rule, key).remaining()).isEqualTo(before);
    clock().advance(Duration.ofMillis(denied.retryAfterMillis()));
    assertThat(acquire(rule, key).allowed()).as("retryAfter still honoured").isTrue();
  }

  /**
   * The blocking and the non-blocking acquire return once the delay has passed (in real time: the
   * caller really waits), and a denial returns at once.
   */
  @Test
  void acquire_waitsTheDelay_blockingAndAsync() throws Exception {
    String rule = rule(policy(Algorithm.GCRA, 10, Duration.ofSeconds(1)));
    String key = key("waiter");
    Decision last = acquire(rule, key);
    while (last.allowed()) {
      last = acquire(rule, key);
    }

    long start = System.nanoTime();
    Decision blocking = limiter().acquire(rule, key, 1, Duration.ofMillis(150));
    long blockedNanos = System.nanoTime() - start;
    assertThat(blocking.allowed()).isTrue();
    assertThat(blocking.delayMillis()).isBetween(1L, 150L);
    assertThat(blockedNanos).isGreaterThanOrEqualTo(blocking.delayNanos());

    start = System.nanoTime();
    Decision async = await(limiter().acquireAsync(rule, key, 1, Duration.ofMillis(300)));
    long asyncNanos = System.nanoTime() - start;
    assertThat(async.allowed()).isTrue();
    assertThat(async.delayNanos()).isGreaterThan(blocking.delayNanos());
    assertThat(asyncNanos).isGreaterThanOrEqualTo(async.delayNanos());

    Decision denied = limiter().acquire(rule, key, 1, Duration.ofMillis(1));
    assertThat(denied.allowed()).isFalse();
  }

  /** An all-or-nothing batch undoes admissions made now; it refuses a check that may wait. */
  @Test
  void maxWait_inAnAllOrNothingBatch_isRefusedAndCountsNothing() {
    String rule = rule(policy(Algorithm.TOKEN_BUCKET, 3, Duration.ofMinutes(1)));
    String key = key("waiter");
    List<Check> checks =
        List.of(Check.of(rule, key, 1), Check.of(rule, key, 1).withMaxWait(Duration.ofSeconds(1)));
    assertThatThrownBy(() -> limiter().tryAcquireAll(checks, BatchMode.ALL))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("maxWait");
    assertThat(peek(rule, key).remaining()).isEqualTo(3);
  }

  /**
   * Concurrency, 2 in flight, permitTtl 30 s. t=0 a, t=1s b (distinct ids); t=2s denied, retryAfter
   * 28 s (a expires at 30 s); release a → one free, c admitted; a released again frees nothing; a
   * holder that never releases (b, c) loses its permits at its expiry.
   */
  @Test
  void concurrency_permitsInFlight_releasedById_orExpiredAfterPermitTtl() {
    String rule = rule(policy(Algorithm.CONCURRENCY, 2, Duration.ofSeconds(30)));
    String key = key("worker");

    Decision a = acquire(rule, key);
    clock().advance(Duration.ofSeconds(1));
    Decision b = acquire(rule, key);
    assertThat(a.allowed()).isTrue();
    assertThat(b.allowed()).isTrue();
    assertThat(a.permitId()).isNotZero().isNotEqualTo(b.permitId());
    assertThat(b.remaining()).isZero();

    clock().advance(Duration.ofSeconds(1));
    Decision denied = acquire(rule, key);
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.permitId()).isZero();
    assertThat(denied.retryAfterMillis()).isEqualTo(28_000);

    assertThat(limiter().releasePermit(rule, key, a.permitId()).remaining()).isEqualTo(1);
    Decision c = acquire(rule, key);
    assertThat(c.allowed()).isTrue();
    assertThat(limiter().releasePermit(rule, key, a.permitId()).remaining())
        .as("a second release of a frees nothing")
        .isZero();

    clock().advance(Duration.ofSeconds(29)); // t=31s: b (expiry 31 s) is gone, c (32 s) is not
    assertThat(peek(rule, key).remaining()).isEqualTo(1);
    clock().advance(Duration.ofSeconds(1));
    assertThat(peek(rule, key).remaining()).isEqualTo(2);
  }

  /** A concurrency acquire that may wait is booked for the instant the earliest permit expires. */
  @Test
  void concurrency_withMaxWait_isBookedAtTheEarliestExpiry() {
    String rule = rule(policy(Algorithm.CONCURRENCY, 1, Duration.ofSeconds(10)));
    String key = key("worker");
    assertThat(acquire(rule, key).allowed()).isTrue();
    clock().advance(Duration.ofSeconds(4));

    assertThat(waitUpTo(rule, key, Duration.ofSeconds(5)).allowed()).isFalse();
    Decision booked = waitUpTo(rule, key, Duration.ofSeconds(6));
    assertThat(booked.allowed()).isTrue();
    assertThat(booked.delayMillis()).isEqualTo(6_000);
    assertThat(booked.permitId()).isNotZero();
  }

  /** Permit ids belong to concurrency rules: anything else is a clear error, nothing changes. */
  @Test
  void releasePermit_onARateRule_isRefused() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 3, Duration.ofMinutes(1)));
    String key = key("user");
    alignTo(Duration.ofMinutes(1));
    acquire(rule, key);
    assertThatThrownBy(() -> limiter().releasePermit(rule, key, 12345))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("permitId");
    assertThat(peek(rule, key).remaining()).isEqualTo(2);
  }

  protected final Decision waitUpTo(String rule, String key, Duration maxWait) {
    return limiter().tryAcquire(Check.of(rule, key, 1).withMaxWait(maxWait));
  }

  // ---------------------------------------------------------------- reserve, then commit

  /**
   * Fixed window, 10 per minute: a reservation of 6 holds 6; committed at 2, the 4 it was over come
   * back (8 left); a second commit is refused and changes nothing.
   */
  @Test
  void reservation_committedBelowItsEstimate_refundsTheDifference_once() {
    String rule = rule(policy(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1)));
    String key = key("llm");
    alignTo(Duration.ofMinutes(1));

    Reservation reservation = limiter().reserve(rule, key, 6, Duration.ofSeconds(30));
    assertThat(reservation.allowed()).isTrue();
    assertThat(reservation.id()).isNotBlank();
    assertThat(reservation.decision().remaining()).isEqualTo(4);
    assertThat(reservation.decision().permitId()).isZero();
    assertThat(peek(rule, key).remaining()).isEqualTo(4);

    clock().advance(Duration.ofSeconds(5));
    assertThat(limiter().commit(reservation.id(), 2).remaining()).isEqualTo(8);
    assertThat(peek(rule, key).remaining()).isEqualTo(8);

    assertThatThrownBy(() -> limiter().commit(reservation.id(), 0))
        .isInstanceOfSatisfying(
            ReservationException.class,
            e -> assertThat(e.reason()).isEqualTo(ReservationException.Reason.COMMITTED))
        .hasMessageContaining("committed already");
    assertThat(peek(rule, key).remaining()).isEqualTo(8);
  }

  /**
   * Token bucket, 10 per second, burst 10 (a token per 100 ms): a reservation of 5, committed at
   * 14, charges the 9 it was under though only 5 were left: the bucket is 4 in debt, so the next
   * request waits for 5 tokens (500 ms), then is admitted.
   */
  @Test
  void reservation_committedAboveItsEstimate_chargesTheRest_intoDebt() {
    String rule = rule(policy(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1)));
    String key = key("llm");

    Reservation reservation = limiter().reserve(rule, key, 5, Duration.ofSeconds(10));
    assertThat(reservation.decision().remaining()).isEqualTo(5);
    Decision settled = limiter().commit(reservation.id(), 14);
    assertThat(settled.remaining()).isZero();

    Decision next = acquire(rule, key);
    assertThat(next.allowed()).isFalse();
    assertThat(next.retryAfterMillis()).isEqualTo(500);
    clock().advance(Duration.ofMillis(500));
    assertThat(acquire(rule, key).allowed()).isTrue();
  }

  /** Committed at its estimate, a reservation changes no count. */
  @Test
  void reservation_committedAtItsEstimate_changesNothing() {
    String rule = rule(policy(Algorithm.SLIDING_LOG, 5, Duration.ofMinutes(1)));
    String key = key("llm");
    Reservation reservation = limiter().reserve(rule, key, 3, Duration.ofSeconds(10));
    assertThat(limiter().commit(reservation.id(), 3).remaining()).isEqualTo(2);
    assertThat(peek(rule, key).remaining()).isEqualTo(2);
  }

  /**
   * A reservation not committed within its ttl is settled at its estimate, once: a late commit is
   * refused as expired and refunds nothing.
   */
  @Test
  void reservation_notCommittedWithinItsTtl_isSettledAtItsEstimate() {
    String rule = rule(policy(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1)));
    String key = key("llm");
    alignTo(Duration.ofMinutes(1));
    Reservation reservation = limiter().reserve(rule, key, 4, Duration.ofSeconds(10));

    clock().advance(Duration.ofSeconds(11));
    assertThatThrownBy(() -> limiter().commit(reservation.id(), 0))
        .isInstanceOfSatisfying(
            ReservationException.class,
            e -> assertThat(e.reason()).isEqualTo(ReservationException.Reason.EXPIRED))
        .hasMessageContaining("settled at its estimate");
    assertThat(peek(rule, key).remaining()).isEqualTo(6);
    assertThatThrownBy(() -> limiter().commit(reservation.id(), 0))
        .isInstanceOf(ReservationException.class);
  }

  /** A reset key forgets its reservations: a commit is told so and charges nothing. */
  @Test
  void reservation_ofAResetKey_isUnknown() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 10, Duration.ofMinutes(1)));
    String key = key("llm");
    Reservation reservation = limiter().reserve(rule, key, 4, Duration.ofSeconds(30));
    limiter().reset(rule, key);

    assertThatThrownBy(() -> limiter().commit(reservation.id(), 9))
        .isInstanceOfSatisfying(
            ReservationException.class,
            e -> assertThat(e.reason()).isEqualTo(ReservationException.Reason.UNKNOWN));
    assertThat(peek(rule, key).remaining()).isEqualTo(10);
  }

  /** A denied estimate holds nothing and has no id. */
  @Test
  void reservation_deniedEstimate_holdsNothing() {
    String rule = rule(policy(Algorithm.GCRA, 3, Duration.ofMinutes(1)));
    String key = key("llm");
    Reservation big = limiter().reserve(rule, key, 3, Duration.ofSeconds(30));
    assertThat(big.allowed()).isTrue();
    Reservation denied = limiter().reserve(rule, key, 1, Duration.ofSeconds(30));
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.id()).isNull();
    assertThat(denied.decision().retryAfterMillis()).isPositive();
    limiter().commit(big.id(), 1);
    assertThat(peek(rule, key).remaining()).isEqualTo(2);
  }

  /** Inline policies reserve and commit alike: the id carries the policy. */
  @Test
  void reservation_underAnInlinePolicy_isCommittedByItsIdAlone() {
    Policy policy =
        new Policy(
            List.of(Limit.of(10, Duration.ofMinutes(1)), Limit.of(100, Duration.ofHours(1))),
            false,
            false);
    String key = key("llm");
    Reservation reservation =
        limiter().reserve(Check.inline(policy, key, 8), Duration.ofSeconds(30));
    assertThat(reservation.decision().remaining()).isEqualTo(2);
    assertThat(limiter().commit(reservation.id(), 3).remaining()).isEqualTo(7);
    assertThat(limiter().peek(PolicyRef.inline(policy), key).remaining()).isEqualTo(7);
  }

  /** Bad input is refused with the field named, and changes nothing. */
  @Test
  void reservation_badInput_isRefused_andChangesNothing() {
    String rule = rule(policy(Algorithm.FIXED_WINDOW, 10, Duration.ofMinutes(1)));
    String inFlight = rule(policy(Algorithm.CONCURRENCY, 2, Duration.ofSeconds(30)));
    String key = key("llm");
    alignTo(Duration.ofMinutes(1));

    assertThatThrownBy(() -> limiter().reserve(rule, key, 11, Duration.ofSeconds(1)))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("cost");
    assertThatThrownBy(() -> limiter().reserve(rule, key, 0, Duration.ofSeconds(1)))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("cost");
    assertThatThrownBy(() -> limiter().reserve(rule, key, 1, Duration.ofDays(2)))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> limiter().reserve(inFlight, key, 1, Duration.ofSeconds(1)))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("concurrency");
    assertThatThrownBy(() -> limiter().commit("not-an-id", 1))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("reservationId");

    Reservation reservation = limiter().reserve(rule, key, 4, Duration.ofSeconds(30));
    assertThatThrownBy(() -> limiter().commit(reservation.id(), -1))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("cost");
    assertThatThrownBy(() -> limiter().commit(reservation.id(), 2_000_000_000L))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("cost");
    assertThat(peek(rule, key).remaining()).isEqualTo(6);
    assertThat(limiter().commit(reservation.id(), 1).remaining())
        .as("still open after the refused commits")
        .isEqualTo(9);
  }

  // ---------------------------------------------------------------- many keys, moving time

  @Test
  void manyKeys_areIndependent() {
    String rule = rule(policy(Algorithm.SLIDING_WINDOW, 3, Duration.ofMinutes(1)));
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      keys.add(key("k" + i));
    }
    for (String key : keys) {
      assertThat(countAllowed(rule, key, 4)).as(key).isEqualTo(3);
    }
  }

  @Test
  void timeMovingAcrossWindows_admitsTheLimitInEachWindow() {
    String fixed = rule(policy(Algorithm.FIXED_WINDOW, 3, Duration.ofSeconds(1)));
    String log = rule(policy(Algorithm.SLIDING_LOG, 3, Duration.ofSeconds(1)));
    String key = key("steady");
    alignTo(Duration.ofSeconds(1));

    for (int window = 0; window < 10; window++) {
      assertThat(countAllowed(fixed, key, 5)).as("fixed, window %d", window).isEqualTo(3);
      assertThat(countAllowed(log, key, 5)).as("log, window %d", window).isEqualTo(3);
      clock().advance(Duration.ofSeconds(1));
    }
  }

  // ---------------------------------------------------------------- helpers

  /** A name unique to this test run, e.g. {@code c12-3kx9a-login}. */
  protected final String name(String base) {
    return prefix + "-" + base;
  }

  /** A subject unique to this test run. */
  protected final String key(String base) {
    return prefix + ":" + base;
  }

  /** Puts a rule with {@code policy} under a unique name and returns the name. */
  protected final String rule(Policy policy) {
    String name =
        name(policy.limits().get(0).algorithm().wireName() + "-" + SEQUENCE.incrementAndGet());
    limiter().rules().put(new Rule(name, policy));
    return name;
  }

  protected static Policy policy(Algorithm algorithm, long limit, Duration window) {
    return Policy.builder().algorithm(algorithm).limit(limit).window(window).build();
  }

  protected final Decision acquire(String rule, String key) {
    return limiter().tryAcquire(rule, key, 1);
  }

  protected final Decision peek(String rule, String key) {
    return limiter().peek(rule, key);
  }

  protected final void acquireAll(String rule, String key, int times) {
    for (int i = 0; i < times; i++) {
      assertThat(acquire(rule, key).allowed()).as("request %d of %d", i + 1, times).isTrue();
    }
  }

  protected final int countAllowed(String rule, String key, int attempts) {
    int allowed = 0;
    for (int i = 0; i < attempts; i++) {
      allowed += acquire(rule, key).allowed() ? 1 : 0;
    }
    return allowed;
  }

  /** Moves the clock forward to the next multiple of {@code window} since the epoch. */
  protected final void alignTo(Duration window) {
    long now = clock().nowNanos();
    long windowNanos = window.toNanos();
    clock().advanceNanos(windowNanos - Math.floorMod(now, windowNanos));
  }

  /** Moves the clock forward to {@code second} into the current window of length {@code window}. */
  private void atSecondOfWindow(int second, Duration window) {
    long now = clock().nowNanos();
    long windowStart = now - Math.floorMod(now, window.toNanos());
    long target = windowStart + Duration.ofSeconds(second).toNanos();
    clock().advanceNanos(target - now);
  }

  protected static <T> T await(CompletionStage<T> stage)
      throws InterruptedException, ExecutionException, TimeoutException {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /**
   * The operation fails with {@code type}, either thrown at once or as the stage's failure: a
   * runtime may validate before or after going asynchronous.
   */
  protected static void assertFailsWith(
      Supplier<? extends CompletionStage<?>> operation,
      Class<? extends Throwable> type,
      String text) {
    ThrowableAssert.ThrowingCallable call =
        () -> {
          try {
            operation.get().toCompletableFuture().get(10, TimeUnit.SECONDS);
          } catch (ExecutionException | CompletionException e) {
            throw e.getCause();
          }
        };
    assertThatThrownBy(call).isInstanceOf(type).hasMessageContaining(text);
  }
}
