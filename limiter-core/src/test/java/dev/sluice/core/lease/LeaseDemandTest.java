package dev.sluice.core.lease;

import static dev.sluice.core.decision.LeaseAsk.UNTIL_WINDOW_END;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Check;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.decision.LeaseAsk;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * When a holder asks for a lease, and which ({@link LeaseDemand}), as timelines on a manual clock:
 * a burst within one interval, a warm rate over a second, a key asked a few times a second (a lease
 * to the end of its window) or once, one ask at a time, and a tracker full of keys.
 */
class LeaseDemandTest {
  private final ManualTimeSource clock = new ManualTimeSource(0);
  private final LeaseDemand demand = new LeaseDemand(stateKey -> stateKey.endsWith("held"));

  @Test
  void burstWithinOneInterval_asksForAShortLeaseOnItsEighthRequest() {
    Check check = Check.of("hot", "burst", 1);
    for (int i = 1; i < LeaseDemand.HOT_REQUESTS; i++) {
      // Not a steady key either: a rate needs a whole second of counting.
      assertThat(wanted(check)).as("request %d", i).isEqualTo(LeaseAsk.NONE);
    }
    assertThat(wanted(check))
        .isEqualTo(new LeaseAsk(LeaseDemand.HOT_REQUESTS * 3 / 2, LeaseAsk.SHORT_OR_PACED));
  }

  @Test
  void steadyRateOfTenASecond_asksAsAWarmKeyOnItsTenthRequestWithinASecond() {
    Check check = Check.of("hot", "warm", 1);
    // One request every 100 ms: never more than one in an interval, so never a burst.
    LeaseAsk asked = LeaseAsk.NONE;
    int request = 0;
    while (asked.lifetimeNanos() != LeaseAsk.WINDOW_SHORT_OR_PACED && request < 30) {
      asked = wanted(check);
      request++;
      clock.advance(Duration.ofMillis(LeaseDemand.INTERVAL_MILLIS));
    }
    assertThat(request).as("the request that asked, 900 ms after the first").isEqualTo(10);
    assertThat(asked.permits()).as("10 in the last second, once and a half: 15").isEqualTo(15);
  }

  @Test
  void warmKey_leasesWhatItsLastSecondUsed_onceAndAHalf_andABurstWhatItsBusierIntervalUsed() {
    Check check = Check.of("hot", "forty", 1);
    // 40 a second, 4 in each interval: never a burst; warm at the tenth request, 10 × 1.5 = 15.
    LeaseAsk asked = LeaseAsk.NONE;
    for (int i = 0; i < 40 && asked.lifetimeNanos() != LeaseAsk.WINDOW_SHORT_OR_PACED; i++) {
      asked = wanted(check);
      clock.advance(Duration.ofMillis(25));
    }
    assertThat(asked).isEqualTo(new LeaseAsk(15, LeaseAsk.WINDOW_SHORT_OR_PACED));
    demand.askEnded(check.key());

    // Then 8 within one interval: a burst, which asks for a short lease of 8 × 1.5 = 12.
    clock.advance(Duration.ofMillis(LeaseDemand.INTERVAL_MILLIS));
    for (int i = 0; i < 7; i++) {
      assertThat(wanted(check).lifetimeNanos()).isNotEqualTo(LeaseAsk.SHORT_OR_PACED);
      demand.askEnded(check.key());
    }
    assertThat(wanted(check)).isEqualTo(new LeaseAsk(12, LeaseAsk.SHORT_OR_PACED));
  }

  @Test
  void lastSecond_countsOnlyItsShareThatIsStillWithinASecond() {
    Check check = Check.of("hot", "faded", 1);
    for (int i = 0; i < 9; i++) {
      wanted(check); // 9 in the first second, one per interval
      clock.advance(Duration.ofMillis(LeaseDemand.INTERVAL_MILLIS));
    }
    // At 1.5 s half of the first second lies within the last second: about 4 of its 9, plus this
    // one, a steady key that asks for 5 × 1.5 to the end of the window. Counting the whole first
    // second would make 10, a warm key asking for a short lease.
    clock.advance(Duration.ofMillis(600));
    assertThat(wanted(check)).isEqualTo(new LeaseAsk(8, UNTIL_WINDOW_END));
  }

  @Test
  void keyAskedAFewTimesASecond_neverAsksForAShortLease_evenWhenTwoRequestsMeet() {
    Check check = Check.of("hot", "cold", 1);
    // Three a second for ten seconds, two of them always 1 ms apart: a count over 200 ms would
    // see them as 20 a second.
    for (int second = 0; second < 10; second++) {
      for (int i = 0; i < 3; i++) {
        assertThat(wanted(check).lifetimeNanos())
            .as("second %d, request %d", second, i)
            .isNotEqualTo(LeaseAsk.SHORT_OR_PACED);
        clock.advance(Duration.ofMillis(i == 0 ? 1 : i == 1 ? 499 : 500));
      }
    }
    // A new second begins with this request: the last second's 3 count whole, 4 × 1.5 = 6.
    assertThat(wanted(check)).as("a steady key").isEqualTo(new LeaseAsk(6, UNTIL_WINDOW_END));
  }

  @Test
  void keyAskedOnceASecond_asksForNoLease() {
    Check check = Check.of("hot", "once", 1);
    for (int second = 0; second < 10; second++) {
      assertThat(wanted(check)).as("second %d", second).isEqualTo(LeaseAsk.NONE);
      clock.advance(Duration.ofMillis(1_001));
    }
  }

  @Test
  void steadyKey_asksForItsPermitsTimesTheRequestsAsked() {
    Check check = Check.of("hot", "costly", 3);
    wanted(check);
    clock.advance(Duration.ofMillis(600));
    assertThat(wanted(check))
        .as("two within the first second: no rate yet")
        .isEqualTo(LeaseAsk.NONE);
    clock.advance(Duration.ofMillis(400));
    // A second after the first: 1 in this second, 2 in the last weighed whole: 3 × 1.5 rounds up
    // to 5 requests' worth, of three permits each.
    assertThat(wanted(check)).isEqualTo(new LeaseAsk(5 * 3, UNTIL_WINDOW_END));
  }

  @Test
  void fullTracker_forgetsIdleKeys_butKeepsTheWarmOnes() {
    for (int i = 0; i < LeaseDemand.MAX_TRACKED_KEYS; i++) {
      wanted(Check.of("hot", "once-" + i, 1)); // keys asked once, then never again
    }
    clock.advance(Duration.ofMillis(2_500));
    Check warm = Check.of("hot", "warm", 1);
    for (int i = 0; i < 9; i++) {
      assertThat(wanted(warm).lifetimeNanos()).isNotEqualTo(LeaseAsk.WINDOW_SHORT_OR_PACED);
      clock.advance(Duration.ofMillis(LeaseDemand.INTERVAL_MILLIS));
    }
    // One more key fills the tracker: the idle keys go, the warm one stays and asks at its tenth.
    wanted(Check.of("hot", "new", 1));
    assertThat(wanted(warm).lifetimeNanos()).isEqualTo(LeaseAsk.WINDOW_SHORT_OR_PACED);
  }

  @Test
  void trackerFullOfLiveKeys_startsOver() {
    Check warm = Check.of("hot", "warm", 1);
    for (int i = 0; i < 9; i++) {
      wanted(warm);
      clock.advance(Duration.ofMillis(LeaseDemand.INTERVAL_MILLIS));
    }
    for (int i = 0; i <= LeaseDemand.MAX_TRACKED_KEYS; i++) {
      wanted(Check.of("hot", "live-" + i, 1)); // all seen within the last two seconds
    }
    // No key was idle, so the tracker started over, and the warm key's second is gone with it.
    assertThat(wanted(warm)).isEqualTo(LeaseAsk.NONE);
  }

  @Test
  void oneAskAtATime_untilItEnds_orAnIntervalPasses() {
    Check check = Check.of("hot", "asked", 1);
    for (int i = 1; i < LeaseDemand.HOT_REQUESTS; i++) {
      wanted(check);
    }
    assertThat(ask(check).permits()).as("the burst asks").isPositive();
    assertThat(ask(check)).as("an ask is on its way").isEqualTo(LeaseAsk.NONE);
    demand.askEnded(check.stateKey());
    assertThat(ask(check).permits()).as("it came back: the next may ask").isPositive();
    clock.advance(Duration.ofMillis(LeaseDemand.INTERVAL_MILLIS - 1));
    assertThat(ask(check)).as("still on its way").isEqualTo(LeaseAsk.NONE);
    clock.advance(Duration.ofMillis(1));
    assertThat(demand.asking(clock.nowNanos())).as("an answer an interval late is lost").isFalse();
    assertThat(ask(check).permits()).isPositive();
  }

  @Test
  void fullTracker_keepsAnIdleKeyThatHoldsALease() {
    Check held = Check.of("hot", "held", 1);
    Check idle = Check.of("hot", "idle", 1);
    wanted(held);
    wanted(idle);
    for (int i = 2; i < LeaseDemand.MAX_TRACKED_KEYS; i++) {
      wanted(Check.of("hot", "once-" + i, 1));
    }
    clock.advance(Duration.ofMillis(2_500));
    Check fresh = Check.of("hot", "fresh", 1);
    wanted(fresh);
    wanted(Check.of("hot", "overflow", 1));
    // The tracker overflowed with every earlier key idle: they are forgotten, but for the key whose
    // lease's answers are counted in its heat.
    assertThat(demand.key(held.stateKey())).isNotNull();
    assertThat(demand.key(idle.stateKey())).isNull();
    assertThat(demand.key(fresh.stateKey())).isNotNull();
  }

  @Test
  void quietKey_asksForALeaseToTheEndOfItsWindow_onlyWhereThatWindowLastsASecondAtMost() {
    Check check = Check.of("hot", "quiet", 2);
    long second = Duration.ofSeconds(1).toNanos();
    // Its first request: 1 in the last second (itself), once and a half rounded up: 2 requests'
    // worth, of two permits each.
    LeaseAsk first =
        demand.wanted(
            check.stateKey(),
            check.permits(),
            clock.nowNanos(),
            false,
            second,
            Policy.MAX_LEASE_NANOS);
    assertThat(first).isEqualTo(new LeaseAsk(2 * 2, LeaseAsk.UNTIL_WINDOW_END));
    demand.askEnded(check.stateKey());

    // Two seconds later, on a window of a minute: a lease would outlast a second idle here and be
    // sent back, a second call for this one, so none is asked for; nor where there is no window
    // lease (0: a token bucket, or a rule not known here).
    clock.advance(Duration.ofSeconds(2));
    assertThat(
            demand.wanted(
                check.stateKey(),
                check.permits(),
                clock.nowNanos(),
                false,
                60 * second,
                Policy.MAX_LEASE_NANOS))
        .isEqualTo(LeaseAsk.NONE);
    assertThat(ask(check)).isEqualTo(LeaseAsk.NONE);

    // On a window of a second again, 500 ms on: 3 in the last second (the two just counted and
    // this one), once and a half rounded up: 5 requests' worth.
    clock.advance(Duration.ofMillis(500));
    assertThat(
            demand.wanted(
                check.stateKey(),
                check.permits(),
                clock.nowNanos(),
                false,
                second,
                Policy.MAX_LEASE_NANOS))
        .isEqualTo(new LeaseAsk(5 * 2, LeaseAsk.UNTIL_WINDOW_END));
    // One ask at a time, and never for a check of no permits.
    assertThat(
            demand.wanted(
                check.stateKey(),
                check.permits(),
                clock.nowNanos(),
                false,
                second,
                Policy.MAX_LEASE_NANOS))
        .isEqualTo(LeaseAsk.NONE);
    demand.askEnded(check.stateKey());
    Check reading = Check.of("hot", "quiet", 0);
    assertThat(
            demand.wanted(
                reading.stateKey(),
                reading.permits(),
                clock.nowNanos(),
                false,
                second,
                Policy.MAX_LEASE_NANOS))
        .isEqualTo(LeaseAsk.NONE);
  }

  /** The request's ask, left on its way, on a rule with no lease to the end of the window. */
  private LeaseAsk ask(Check check) {
    return demand.wanted(
        check.stateKey(), check.permits(), clock.nowNanos(), false, 0, Policy.MAX_LEASE_NANOS);
  }

  /** The request's ask, ended at once: the answer is not the subject here. */
  private LeaseAsk wanted(Check check) {
    LeaseAsk wanted = ask(check);
    if (wanted.permits() > 0) {
      demand.askEnded(check.stateKey());
    }
    return wanted;
  }
}
