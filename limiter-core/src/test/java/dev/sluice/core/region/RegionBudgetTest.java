package dev.sluice.core.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.region.RegionBudget.Grant;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A region's budget for one key on a manual clock, with no grid: the pure code every {@code
 * RegionBudgetProcessor} step runs. Each step reads the budget back from what it stored, as the
 * entry processor does, so the stored form is exercised too.
 *
 * <p>The randomized case plays a home owner of a fixed window of {@code L} per {@code W} on its own
 * clock (offset from the region's), which grants at most a quarter of what the window has left to
 * asks that travel a random delay each way, and a region that spends, refills, goes idle, moves to
 * another member and sees the rule change shape. Whatever happens, per window of home's: the
 * permits the budget answered within it are at most what home granted for it, none is answered at
 * or after the window's end, and every granted permit is spent, given back, dropped at its end or
 * with its shape, or still held, exactly once.
 */
@ExtendWith(Seeds.class)
class RegionBudgetTest {
  private static final long ORIGIN = 1_767_225_600_000_000_000L;
  private static final long SECOND = 1_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final long HOLDER_MOST = 7;
  private static final long HOLDER_LEAST = 11;
  private static final int SHAPE = 42;

  /** The budget as the entry processor sees it: read from what was stored. */
  private static RegionBudget stored(RegionBudget budget) {
    return RegionBudget.of(budget.values());
  }

  /** A spend step as the processor runs it: prune for this holder and shape, then take. */
  private static boolean spend(RegionBudget budget, long permits, long nowNanos, List<Grant> back) {
    back.addAll(budget.prune(HOLDER_MOST, HOLDER_LEAST, nowNanos, SHAPE));
    return budget.take(permits, nowNanos);
  }

  private static Grant grant(long permits, long endsAt) {
    return new Grant(permits, endsAt, 5 * SECOND, endsAt - ORIGIN, SHAPE);
  }

  private static RegionBudget heldHere() {
    RegionBudget budget = RegionBudget.empty();
    budget.prune(HOLDER_MOST, HOLDER_LEAST, ORIGIN, SHAPE);
    return budget;
  }

  @Test
  void aGrant_answersUntilJustBeforeItsEnd_andNothingFromItAtItsEnd() {
    ManualTimeSource clock = new ManualTimeSource(ORIGIN);
    RegionBudget budget = heldHere();
    long end = ORIGIN + SECOND;
    budget.deposit(grant(3, end), clock.nowNanos());
    assertThat(budget.held()).isEqualTo(3);
    List<Grant> back = new ArrayList<>();

    clock.advance(Duration.ofNanos(SECOND - 2));
    assertThat(spend(budget, 1, clock.nowNanos(), back)).isTrue();
    budget = stored(budget);
    clock.advance(Duration.ofNanos(1));
    assertThat(spend(budget, 1, clock.nowNanos(), back)).isTrue();
    budget = stored(budget);
    clock.advance(Duration.ofNanos(1)); // the grant's end: its window has passed at home
    assertThat(spend(budget, 1, clock.nowNanos(), back)).isFalse();
    assertThat(budget.held()).isZero();
    assertThat(back).as("an ended grant frees nothing at home: it is not given back").isEmpty();
  }

  @Test
  void take_neverAnswersFromAnEndedGrant_evenWithoutAPruneFirst() {
    RegionBudget budget = heldHere();
    budget.deposit(grant(5, ORIGIN + SECOND), ORIGIN);
    assertThat(budget.take(1, ORIGIN + SECOND)).isFalse();
    assertThat(budget.take(1, ORIGIN + 2 * SECOND)).isFalse();
    assertThat(budget.held()).isZero();
  }

  @Test
  void aGrantThatEndedBeforeItLanded_isNotKept() {
    RegionBudget budget = heldHere();
    assertThat(budget.deposit(grant(5, ORIGIN + SECOND), ORIGIN + SECOND)).isEmpty();
    assertThat(budget.held()).isZero();
    assertThat(budget.deposit(grant(0, ORIGIN + 2 * SECOND), ORIGIN)).isEmpty();
    assertThat(budget.held()).isZero();
  }

  @Test
  void take_isAllOrNothing_andSpendsTheGrantsThatEndSoonestFirst() {
    RegionBudget budget = heldHere();
    budget.deposit(grant(4, ORIGIN + 3 * SECOND), ORIGIN);
    budget.deposit(grant(2, ORIGIN + SECOND), ORIGIN);
    assertThat(budget.take(7, ORIGIN)).isFalse();
    assertThat(budget.held()).isEqualTo(6);
    assertThat(budget.take(3, ORIGIN)).isTrue();
    budget = stored(budget);
    assertThat(budget.grants())
        .extracting(Grant::permits, Grant::endsAtNanos)
        .containsExactly(tuple(3L, ORIGIN + 3 * SECOND));
  }

  /**
   * The worked example of RegionBudget, "Paced grants": home granted 10 permits one every 10 ms
   * over 100 ms; here the first is usable at 25 ms (the answer's arrival) and the grant ends at 75
   * ms, so only the permits usable at 25, 35, 45, 55 and 65 ms can answer.
   */
  @Test
  void
      aPacedGrant_answersEachPermitFromItsInstant_deniesUntilTheNext_andHoldsOnlyWhatItsEndAllows() {
    RegionBudget budget = heldHere();
    Grant paced = new Grant(10, ORIGIN + 75 * MS, 0, 100 * MS, SHAPE, ORIGIN + 25 * MS, 10 * MS);
    assertThat(budget.deposit(paced, ORIGIN + 25 * MS))
        .as("those usable only after its end go back to home at once, for the exact undo")
        .containsExactly(
            new Grant(5, ORIGIN + 75 * MS, 0, 100 * MS, SHAPE, ORIGIN + 25 * MS, 10 * MS));
    assertThat(budget.held()).as("usable before its end").isEqualTo(5);

    assertThat(budget.take(1, ORIGIN + 20 * MS)).isFalse();
    assertThat(budget.usableInNanos(1, ORIGIN + 20 * MS)).isEqualTo(5 * MS);
    assertThat(budget.take(1, ORIGIN + 25 * MS)).isTrue();
    budget = stored(budget);
    assertThat(budget.take(1, ORIGIN + 26 * MS)).isFalse();
    assertThat(budget.usableInNanos(1, ORIGIN + 26 * MS)).isEqualTo(9 * MS);
    assertThat(budget.usableInNanos(2, ORIGIN + 26 * MS))
        .as("until both permits asked for are usable")
        .isEqualTo(19 * MS);
    assertThat(budget.take(2, ORIGIN + 45 * MS)).as("35 ms and 45 ms").isTrue();
    assertThat(budget.held()).isEqualTo(2);
    assertThat(budget.usableInNanos(3, ORIGIN + 45 * MS))
        .as("more than it holds before its end: ask home")
        .isZero();
    assertThat(budget.take(2, ORIGIN + 74 * MS)).as("55 ms and 65 ms").isTrue();
    assertThat(budget.held()).isZero();
    assertThat(budget.grants()).isEmpty();
  }

  @Test
  void aPacedGrant_keepsHomesDenial_forTheKeyIsAtItsLimit_butRefillsGoOn() {
    RegionBudget budget = heldHere();
    budget.denied(1, ORIGIN, 10 * MS, 10 * MS);
    budget.deposit(
        new Grant(3, ORIGIN + 75 * MS, 0, 100 * MS, SHAPE, ORIGIN + 30 * MS, 10 * MS), ORIGIN);
    assertThat(budget.deniedFor(1, ORIGIN + MS)).isEqualTo(9 * MS);
    budget = stored(budget);
    for (int i = 0; i < 50; i++) {
      budget.take(1, ORIGIN + 2 * MS); // none usable yet: demand of 50, nothing spent
    }
    assertThat(budget.askRefill(ORIGIN + 2 * MS, 50 * MS))
        .as("home paces the key: a refill during its denial brings the next paced permits")
        .isTrue();
    budget.deposit(grant(3, ORIGIN + SECOND), ORIGIN + 2 * MS);
    assertThat(budget.deniedFor(1, ORIGIN + 3 * MS)).as("a grant usable at once: room").isZero();
  }

  @Test
  void aBudgetFoundOnAnotherMember_answersNothingFromWhatItCarried_andGivesAllOfItBack() {
    RegionBudget budget = heldHere();
    Grant first = new Grant(4, ORIGIN + SECOND, 123, 900 * MS, SHAPE);
    Grant second = new Grant(2, ORIGIN + 2 * SECOND, 456, 1_900 * MS, SHAPE);
    budget.deposit(first, ORIGIN);
    budget.deposit(second, ORIGIN);
    budget.take(1, ORIGIN + MS);
    budget = stored(budget);

    List<Grant> back = budget.prune(HOLDER_MOST + 1, HOLDER_LEAST, ORIGIN + 2 * MS, SHAPE);
    assertThat(back)
        .as("unused, with home's own instants for the exact undo")
        .containsExactlyInAnyOrder(new Grant(3, ORIGIN + SECOND, 123, 900 * MS, SHAPE), second);
    assertThat(budget.held()).isZero();
    assertThat(budget.heldBy(HOLDER_MOST + 1, HOLDER_LEAST)).isTrue();
    assertThat(budget.take(1, ORIGIN + 3 * MS)).isFalse();
  }

  @Test
  void aShapeChangeAtHome_dropsTheOldShapesGrants_withoutGivingThemBack() {
    RegionBudget budget = heldHere();
    budget.deposit(grant(5, ORIGIN + SECOND), ORIGIN);
    List<Grant> back = budget.prune(HOLDER_MOST, HOLDER_LEAST, ORIGIN + MS, SHAPE + 1);
    assertThat(back).as("a return under the new shape would free the wrong permits").isEmpty();
    assertThat(budget.held()).isZero();
  }

  @Test
  void anIdleBudget_goesBackAfterASecondWithoutAnAnswer_andIsForgottenOnceEmpty() {
    RegionBudget budget = heldHere();
    budget.deposit(grant(5, ORIGIN + 10 * SECOND), ORIGIN);
    budget.take(1, ORIGIN);
    assertThat(budget.idle(ORIGIN + RegionBudget.IDLE_NANOS - 1)).isFalse();
    budget.take(1, ORIGIN + 500 * MS);
    assertThat(budget.idle(ORIGIN + RegionBudget.IDLE_NANOS)).isFalse();
    long idleAt = ORIGIN + 500 * MS + RegionBudget.IDLE_NANOS;
    assertThat(budget.idle(idleAt)).isTrue();
    assertThat(budget.forgettable(idleAt)).isFalse();
    assertThat(budget.takeAll()).extracting(Grant::permits).containsExactly(3L);
    assertThat(budget.idle(idleAt)).as("nothing held").isFalse();
    assertThat(budget.forgettable(idleAt)).isTrue();
  }

  @Test
  void refill_isAskedWhenWhatIsHeldLastsLessThanTwoRoundTripsAndATenthOfASecond_onceInFlight() {
    RegionBudget budget = heldHere();
    long roundTrip = 50 * MS;
    // 100 permits in the first second: the rate is what the current second saw so far.
    for (int i = 0; i < 100; i++) {
      budget.take(1, ORIGIN + i * MS);
    }
    assertThat(budget.ratePerSecond()).isEqualTo(100);
    // 100/s × (2 × 50 ms + 100 ms) = 20 permits.
    assertThat(budget.lowWater(roundTrip)).isEqualTo(20);
    assertThat(budget.refillAsk(roundTrip)).isEqualTo(100);

    long now = ORIGIN + 100 * MS;
    budget.deposit(grant(20, ORIGIN + 10 * SECOND), now);
    assertThat(budget.held()).isEqualTo(20);
    assertThat(budget.askRefill(now, roundTrip)).as("20 held: at the mark, not below").isFalse();
    budget.take(1, now);
    assertThat(budget.askRefill(now, roundTrip)).as("19 held").isTrue();
    budget = stored(budget);
    assertThat(budget.askRefill(now + MS, roundTrip)).as("one in flight").isFalse();
    assertThat(budget.askRefill(now + RegionBudget.REFILL_TIMEOUT_NANOS - 1, roundTrip)).isFalse();

    budget.refillFailed();
    assertThat(budget.askRefill(now + 2 * MS, roundTrip)).as("after a failure, at once").isTrue();
    budget.deposit(grant(1, ORIGIN + 10 * SECOND), now + 3 * MS);
    assertThat(budget.askRefill(now + 3 * MS, roundTrip)).as("landed: the next may go").isTrue();
    assertThat(budget.askRefill(now + 3 * MS + RegionBudget.REFILL_TIMEOUT_NANOS, roundTrip))
        .as("a refill that never landed is forgotten after its timeout")
        .isTrue();
  }

  @Test
  void noRefill_isAskedForAKeyWithNoDemand_andTheRateFallsToZeroAfterASilentSecond() {
    RegionBudget budget = heldHere();
    assertThat(budget.askRefill(ORIGIN, 50 * MS)).isFalse();
    budget.take(3, ORIGIN);
    assertThat(budget.askRefill(ORIGIN, 50 * MS)).as("3/s, nothing held").isTrue();
    assertThat(budget.lowWater(50 * MS)).isEqualTo(1);
    assertThat(budget.refillAsk(50 * MS)).isEqualTo(3);
    budget.take(1, ORIGIN + 3 * SECOND); // a second with no request came between
    assertThat(budget.ratePerSecond()).isEqualTo(1);
  }

  @Test
  void homesDenial_deniesChecksOfAtLeastItsPermitsUntilSentAtPlusRetryAfter_thenAsksHomeAgain() {
    RegionBudget budget = heldHere();
    // t=0 the ask leaves; home denies 2 permits: retry after 300 ms, the window resets in 800 ms.
    budget.denied(2, ORIGIN, 300 * MS, 800 * MS);
    budget = stored(budget);

    assertThat(budget.deniedFor(2, ORIGIN + 100 * MS)).isEqualTo(200 * MS);
    assertThat(budget.deniedResetAfter(ORIGIN + 100 * MS)).isEqualTo(700 * MS);
    assertThat(budget.deniedFor(5, ORIGIN + 299 * MS)).as("more permits: denied too").isEqualTo(MS);
    assertThat(budget.deniedFor(1, ORIGIN + 100 * MS)).as("fewer may fit: ask home").isZero();
    assertThat(budget.deniedFor(2, ORIGIN + 300 * MS)).as("at sentAt + retryAfter").isZero();
    assertThat(budget.deniedFor(2, ORIGIN + 100 * MS)).as("forgotten once it ran out").isZero();
  }

  @Test
  void homesDenial_isOnlyReplacedByOneThatCoversAsManyChecks_whileItHolds() {
    RegionBudget budget = heldHere();
    budget.denied(1, ORIGIN, 300 * MS, 300 * MS);
    budget.denied(4, ORIGIN + 100 * MS, 900 * MS, 900 * MS);
    assertThat(budget.deniedFor(1, ORIGIN + 200 * MS))
        .as("the denial of 1 still holds")
        .isPositive();
    assertThat(budget.deniedFor(4, ORIGIN + 400 * MS)).as("and ran out at 300 ms").isZero();
    budget.denied(4, ORIGIN + 500 * MS, 100 * MS, 100 * MS);
    budget.denied(3, ORIGIN + 550 * MS, 200 * MS, 200 * MS);
    assertThat(budget.deniedFor(3, ORIGIN + 700 * MS)).isEqualTo(50 * MS);
  }

  @Test
  void homesDenial_isDroppedByAGrantFromHome_orAMoveToAnotherMember_andStopsRefills() {
    RegionBudget budget = heldHere();
    budget.take(5, ORIGIN); // 5/s of demand, nothing held
    budget.denied(1, ORIGIN, 500 * MS, 500 * MS);
    assertThat(budget.askRefill(ORIGIN + MS, 50 * MS)).as("home would deny it too").isFalse();
    budget.deposit(grant(3, ORIGIN + SECOND), ORIGIN + 2 * MS);
    assertThat(budget.held()).isEqualTo(3);
    assertThat(budget.deniedFor(1, ORIGIN + 3 * MS)).as("home had room again").isZero();

    budget.denied(1, ORIGIN + 4 * MS, 500 * MS, 500 * MS);
    budget.prune(HOLDER_MOST + 1, HOLDER_LEAST, ORIGIN + 5 * MS, SHAPE);
    assertThat(budget.deniedFor(1, ORIGIN + 6 * MS)).as("its end was on another clock").isZero();
  }

  @Test
  void aBudgetStoredInAnotherFormat_isReadAsEmpty_whichOnlyHoldsLess() {
    long[] other = {
      9,
      HOLDER_MOST,
      HOLDER_LEAST,
      ORIGIN,
      0,
      ORIGIN,
      3,
      0,
      1,
      0,
      0,
      0,
      4,
      ORIGIN + SECOND,
      123,
      900,
      SHAPE
    };
    RegionBudget budget = RegionBudget.of(other);
    assertThat(budget.grants()).isEmpty();
    assertThat(budget.heldBy(HOLDER_MOST, HOLDER_LEAST)).isFalse();
  }

  /** Home's owner of the key: a fixed window of {@code limit} per {@code window}, on its clock. */
  private static final class Home {
    final long limit;
    final long window;
    final long offset;
    final Map<Long, Long> counted = new HashMap<>();

    Home(long limit, long window, long offset) {
      this.limit = limit;
      this.window = window;
      this.offset = offset;
    }

    long windowOf(long regionNanos) {
      return Math.floorDiv(regionNanos + offset - ORIGIN, window);
    }

    /** Grants up to a quarter of what is left (at least 1 while any is), to the window's end. */
    long grant(long ask, long homeNanos) {
      long index = Math.floorDiv(homeNanos - ORIGIN, window);
      long left = limit - counted.getOrDefault(index, 0L);
      long granted = Math.min(ask, Math.max(left > 0 ? 1 : 0, left / 4));
      counted.merge(index, granted, Long::sum);
      return granted;
    }

    long endOf(long homeNanos) {
      return ORIGIN + (Math.floorDiv(homeNanos - ORIGIN, window) + 1) * window;
    }
  }

  @Test
  void randomHistories_neverSpendMoreInAWindowThanHomeGrantedForIt_andAccountForEveryPermit() {
    Seeds.run("region budget", 300, seed -> history(new Random(seed)));
  }

  private static void history(Random random) {
    long limit = 10 + random.nextInt(500);
    long window = (100 + random.nextInt(1_900)) * MS;
    Home home = new Home(limit, window, (random.nextLong() % 1_000) * SECOND);
    ManualTimeSource clock = new ManualTimeSource(ORIGIN);
    long roundTrip = (1 + random.nextInt(150)) * MS;
    RegionBudget budget = RegionBudget.empty();
    long holder = HOLDER_MOST;
    int shape = SHAPE;

    Map<Long, Long> granted = new HashMap<>();
    Map<Long, Long> spent = new HashMap<>();
    long grantedTotal = 0;
    long spentTotal = 0;
    long givenBack = 0;
    List<InFlight> inFlight = new ArrayList<>();

    for (int step = 0; step < 400; step++) {
      clock.advance(Duration.ofMillis(random.nextInt(random.nextInt(10) == 0 ? 300 : 20)));
      long now = clock.nowNanos();
      budget = stored(budget);

      // Answers from home that are back land now, as the processor's deposit step takes them.
      for (int i = inFlight.size() - 1; i >= 0; i--) {
        InFlight ask = inFlight.get(i);
        if (now - ask.landsAt() < 0) {
          continue;
        }
        inFlight.remove(i);
        if (ask.asker() != holder) {
          givenBack += ask.grant().permits(); // its end was read on the clock of a member gone
        } else {
          givenBack += permits(budget.prune(holder, HOLDER_LEAST, now, ask.grant().shape()));
          givenBack += permits(budget.deposit(ask.grant(), now));
        }
      }

      int action = random.nextInt(20);
      if (action < 15) {
        long permits = 1 + random.nextInt(random.nextInt(5) == 0 ? 20 : 3);
        givenBack += permits(budget.prune(holder, HOLDER_LEAST, now, shape));
        List<Grant> live = budget.grants();
        long before = budget.held();
        if (budget.take(permits, now)) {
          for (Grant grant : live) {
            assertThat(now - grant.endsAtNanos()).as("answered past a grant's end").isNegative();
          }
          spent.merge(home.windowOf(now), permits, Long::sum);
          spentTotal += permits;
          assertThat(budget.held()).isEqualTo(before - permits);
        } else {
          assertThat(before).isLessThan(permits);
          assertThat(budget.held()).isEqualTo(before);
        }
        if (budget.askRefill(now, roundTrip)) {
          long ask = budget.refillAsk(roundTrip);
          assertThat(ask).isGreaterThanOrEqualTo(budget.lowWater(roundTrip));
          long out = random.nextInt((int) (roundTrip / MS)) * MS;
          long homeNow = now + out + home.offset;
          long permitsGranted = home.grant(ask, homeNow);
          if (permitsGranted == 0) {
            budget.refillFailed();
          } else {
            // What the link makes of home's answer: the grant's length on home's clock, counted
            // from when the ask left here.
            long length = home.endOf(homeNow) - homeNow;
            Grant grant = new Grant(permitsGranted, now + length, homeNow, length, shape);
            granted.merge(home.windowOf(now + out), permitsGranted, Long::sum);
            grantedTotal += permitsGranted;
            inFlight.add(new InFlight(grant, holder, now + roundTrip));
          }
        }
      } else if (action < 17) {
        // The sweep: ended grants dropped, an idle budget given back.
        budget.dropEnded(now);
        if (budget.idle(now)) {
          givenBack += permits(budget.takeAll());
        }
      } else if (action == 17) {
        // The partition moved: the new holder answers nothing from what the budget carried.
        holder++;
        givenBack += permits(budget.prune(holder, HOLDER_LEAST, now, shape));
        assertThat(budget.held()).isZero();
      } else if (action == 18 && random.nextInt(4) == 0) {
        // The rule changed shape at home: the old shape's grants are dropped, not given back.
        shape++;
        assertThat(budget.prune(holder, HOLDER_LEAST, now, shape)).isEmpty();
        assertThat(budget.held()).isZero();
      }

      // Per window of home's: never more answered than home granted for it, nor than the limit.
      for (Map.Entry<Long, Long> w : spent.entrySet()) {
        assertThat(w.getValue())
            .as("window %d: spent, against what home granted for it", w.getKey())
            .isLessThanOrEqualTo(granted.getOrDefault(w.getKey(), 0L))
            .isLessThanOrEqualTo(limit);
      }
    }
    // Every granted permit is spent, given back, in flight, held, or dropped (at its end or with
    // its shape): what was dropped is the rest, and is never negative.
    long inFlightPermits = 0;
    for (InFlight ask : inFlight) {
      inFlightPermits += ask.grant().permits();
    }
    long dropped = grantedTotal - spentTotal - givenBack - budget.held() - inFlightPermits;
    assertThat(dropped).as("permits dropped unused").isNotNegative();
    assertThat(spentTotal).isLessThanOrEqualTo(grantedTotal);
  }

  /** A refill's grant on its way back from home, asked by {@code asker}. */
  private record InFlight(Grant grant, long asker, long landsAt) {}

  private static long permits(List<Grant> grants) {
    long sum = 0;
    for (Grant grant : grants) {
      sum += grant.permits();
    }
    return sum;
  }
}
