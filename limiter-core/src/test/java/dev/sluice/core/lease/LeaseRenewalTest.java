package dev.sluice.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A holder renews a big lease ahead of its end ({@link LeaseHolder}, "Renewing ahead"), as a
 * timeline on a manual clock with the owner's answers made by hand: one ask when the lease crosses
 * into its last quarter, the next lease kept behind the current one, answers that switch to it
 * without a miss, and every permit either answered, returned or still held.
 */
class LeaseRenewalTest {
  private static final long MS = Duration.ofMillis(1).toNanos();
  private static final long LIMIT = 1_000_000;

  private final ManualTimeSource clock = new ManualTimeSource(0);
  private final RecordingTransport transport = new RecordingTransport(clock);
  private final LeaseHolder holder =
      new LeaseHolder(clock::nowNanos, LeasePolicy.DEFAULT, transport, null);
  private final Check check = Check.of("hot", "k", 1);
  private final String stateKey = check.stateKey();

  @Test
  void bigLease_crossingIntoItsLastQuarter_asksOnceForTheNext() {
    grant(100);

    answer(74);
    assertThat(transport.renewals).as("three quarters and one left: no ask yet").isEmpty();
    answer(1); // leaves 25 of 100
    assertThat(transport.renewals).hasSize(1);
    KeyOp ask = transport.renewals.get(0).ops()[0];
    assertThat(ask.kind()).isEqualTo(KeyOp.Kind.ACQUIRE);
    assertThat(ask.permits()).as("a renewal takes no permits for a request").isZero();
    assertThat(ask.leasePermits()).isGreaterThanOrEqualTo(LeaseHolder.RENEW_AHEAD_MIN_PERMITS);

    answer(25);
    assertThat(transport.renewals).as("one ask per lease").hasSize(1);
    assertThat(holder.answer(check.ref(), stateKey, check.permits()))
        .as("spent, nothing behind it yet")
        .isNull();
  }

  @Test
  void nextLease_grantedWhileTheCurrentHasPermits_takesOverWhenItIsSpent_withoutAMiss() {
    grant(100);
    answer(75); // the ask goes out
    grant(200); // its answer comes back while 25 are left

    // The 25 left of the first lease, then the second's, with no request sent to the owner.
    answer(25 + 200 - 51); // stop before the second lease crosses its own quarter
    assertThat(transport.renewals).hasSize(1);
    LeaseHolder.Statistics statistics = holder.statistics();
    assertThat(statistics.answeredLocally()).isEqualTo(75 + 25 + 149);
    assertThat(statistics.permitsLeased()).isEqualTo(300);
    // The first lease was spent: nothing of it goes back.
    assertThat(holder.takeReturns(false)).isEmpty();
  }

  @Test
  void leaseEndingWithANextOne_returnsWhatItLeft_andTheNextAnswers() {
    grant(100); // t = 0, ends at 100 ms
    answer(75);
    clock.advance(Duration.ofMillis(50));
    grant(200); // t = 50 ms, ends at 150 ms

    clock.advance(Duration.ofMillis(50)); // the first lease is over, the second is not
    List<KeyCommand> returns = holder.takeReturns(false);
    assertThat(returns).hasSize(1);
    assertThat(returns.get(0).ops()).extracting(KeyOp::permits).containsExactly(25L);

    Decision next = holder.answer(check.ref(), stateKey, check.permits());
    assertThat(next).isNotNull();
    assertThat(next.decidedBy()).isEqualTo(DecidedBy.LEASE);
    assertThat(holder.statistics().returned()).isEqualTo(25);
  }

  @Test
  void smallLease_isNotRenewedAhead() {
    grant(LeaseHolder.RENEW_AHEAD_MIN_PERMITS - 1);

    answer(LeaseHolder.RENEW_AHEAD_MIN_PERMITS - 1);

    assertThat(transport.renewals)
        .as("near its limit a key's next lease is asked for with a request")
        .isEmpty();
  }

  @Test
  void failedAsk_letsTheNextRequestAskAgain() {
    grant(100);
    answer(75);
    assertThat(holder.wanted(stateKey, check.permits(), 0, Policy.MAX_LEASE_NANOS).permits())
        .as("an ask is on its way")
        .isZero();

    holder.askFailed(stateKey);

    assertThat(holder.wanted(stateKey, check.permits(), 0, Policy.MAX_LEASE_NANOS).permits())
        .isPositive();
  }

  @Test
  void closingHolder_returnsTheCurrentAndTheNextLease() {
    grant(100);
    answer(75);
    grant(200);

    List<KeyCommand> returns = holder.takeReturns(true);

    assertThat(returns).hasSize(1);
    assertThat(returns.get(0).ops()).extracting(KeyOp::permits).containsExactly(25L, 200L);
    assertThat(holder.holdsAny()).isFalse();
  }

  @Test
  void closingHolder_waitsForTheRenewalOnItsWay_andAsksForNothingMore() {
    grant(100);
    answer(75); // the renewal goes out
    holder.close();

    assertThat(holder.asking()).as("the renewal is still on its way").isTrue();
    grant(200); // it lands
    assertThat(holder.asking()).isFalse();
    assertThat(transport.returns).as("not late: the last returns will take it").isEmpty();
    List<KeyCommand> returns = holder.takeReturns(true);
    assertThat(returns.get(0).ops()).extracting(KeyOp::permits).containsExactly(200L, 25L);
    assertThat(holder.holdsAny()).isFalse();

    grant(50); // an ask that outlived the close's wait
    assertThat(transport.returns)
        .as("landed after the last returns: given back at once")
        .hasSize(1);
    assertThat(transport.returns.get(0).ops()).extracting(KeyOp::permits).containsExactly(50L);
    assertThat(holder.holdsAny()).isFalse();

    for (int i = 0; i < 2 * LeaseDemand.HOT_REQUESTS; i++) {
      assertThat(holder.wanted(stateKey, check.permits(), 0, Policy.MAX_LEASE_NANOS).permits())
          .as("a closed holder asks for no lease")
          .isZero();
    }
  }

  @Test
  void askThatIsLost_stopsCountingAsOnItsWayAfterAnInterval() {
    grant(100);
    answer(75);
    holder.close();
    assertThat(holder.asking()).isTrue();

    clock.advance(Duration.ofMillis(LeaseDemand.INTERVAL_MILLIS));

    assertThat(holder.asking()).isFalse();
  }

  @Test
  void checkOfNoPermits_onAHotKey_asksForNoLease() {
    Check reading = check.withPermits(0);
    for (int i = 0; i < 2 * LeaseDemand.HOT_REQUESTS; i++) {
      assertThat(holder.wanted(stateKey, reading.permits(), 0, Policy.MAX_LEASE_NANOS).permits())
          .as("read %d", i + 1)
          .isZero();
    }
    assertThat(holder.wanted(stateKey, check.permits(), 0, Policy.MAX_LEASE_NANOS).permits())
        .as("the reads made the key hot")
        .isPositive();
  }

  /** Makes the key hot here, then keeps a lease of {@code permits} as the owner's answer. */
  private void grant(long permits) {
    if (holder.statistics().leasesHeld() == 0) {
      for (int i = 0; i < LeaseDemand.HOT_REQUESTS; i++) {
        holder.wanted(stateKey, check.permits(), 0, Policy.MAX_LEASE_NANOS);
      }
    }
    long now = clock.nowNanos();
    KeyOutcome outcome = new KeyOutcome(1, now);
    outcome.setDecision(
        0, new Decision(true, LIMIT, LIMIT - 1_000, 0, 0, 0, false, DecidedBy.LIMITER));
    outcome.setLease(0, permits, now + 100 * MS);
    holder.keep(
        check.ref(),
        stateKey,
        KeyOp.acquireWithLease(1, permits, Policy.MAX_LEASE_NANOS),
        outcome,
        0,
        now);
  }

  /** Answers {@code times} requests, each from a lease. */
  private void answer(long times) {
    for (long i = 0; i < times; i++) {
      @Nullable Decision decision = holder.answer(check.ref(), stateKey, check.permits());
      assertThat(decision).as("answer %d of %d", i + 1, times).isNotNull();
      assertThat(decision.decidedBy()).isEqualTo(DecidedBy.LEASE);
    }
  }
}
