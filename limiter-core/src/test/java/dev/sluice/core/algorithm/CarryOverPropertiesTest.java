package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Permissiveness.assertNoMorePermissive;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.AlgorithmPropertiesTest.Request;
import dev.sluice.core.algorithm.Permissiveness.Event;
import dev.sluice.core.algorithm.Permissiveness.Subject;
import dev.sluice.core.test.RateAlgorithms;
import dev.sluice.core.test.Seeds;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Carrying a key's state over into another policy's state when a rule changes shape ({@code
 * to.fromAdmissions(from.admissions(state, now), now)}, which is what {@code KeyDecision} does), on
 * every pair of algorithms and random sets, with random shapes and traces (seeded; see {@link
 * Seeds}). The math is in {@code docs/algorithms.md}, "Rule changes: carrying a state over".
 */
@ExtendWith(Seeds.class)
class CarryOverPropertiesTest {
  private static final int CASES = 5;

  /**
   * The converted state is never more permissive than the new policy fed, request by request and
   * counting every one, the history the old state still retains:
   *
   * <ul>
   *   <li>fixed_window: the requests of its stored window;
   *   <li>sliding_window: those of its stored window and of the window before;
   *   <li>sliding_log: those in its ring (the newest {@code L} within {@code W} of its newest);
   *   <li>sliding_buckets: those in the buckets of its ring ({@code N + 1} buckets up to its
   *       newest);
   *   <li>gcra, token_bucket, leaky_bucket: a debt {@code D} at now retains {@code k = ceil(D / T)}
   *       permits: the newest {@code k} the key counted, and equally {@code k} permits at any
   *       instants at or before now (which is all a debt can say about them);
   *   <li>a set of limits: the longest of those histories (each is the newest part of the one
   *       history all its limits counted).
   * </ul>
   */
  @Test
  void carryOver_everyPair_neverMorePermissiveThanTheNewPolicyFedWhatTheOldStateRetains() {
    for (String from : Permissiveness.kinds()) {
      for (String to : Permissiveness.kinds()) {
        Seeds.run(
            "carry over " + from + " -> " + to,
            CASES,
            seed -> {
              Random random = new Random(seed);
              Subject source =
                  Subject.of(Permissiveness.policy(random, from, random.nextBoolean()));
              Subject target = Subject.of(Permissiveness.policy(random, to, random.nextBoolean()));
              List<Request> trace =
                  Permissiveness.randomTrace(random, source.policy(), source.capacity(), 120);
              long[] state = source.algorithm().newState();
              List<Event> counted = new ArrayList<>();
              for (int i = 0; i < trace.size(); i++) {
                Request request = trace.get(i);
                Decision decision =
                    source.algorithm().apply(state, request.nowNanos(), request.permits());
                if (decision.allowed() || source.policy().countDenied()) {
                  counted.add(new Event(request.nowNanos(), request.permits(), decision.allowed()));
                }
                boolean last = i == trace.size() - 1;
                if (!last && random.nextInt(12) != 0) {
                  continue;
                }
                long now =
                    last
                        ? request.nowNanos()
                            + (long) (random.nextDouble() * 2 * source.horizonNanos())
                        : request.nowNanos();
                long[] converted = carryOver(source, state, target, now);
                long retained = retained(source.policy(), state, counted, now);
                long[] reference = target.forced().replay(newest(counted, retained));
                String what =
                    String.format(
                        "%s -> %s at +%d: %d permits retained",
                        source.policy(), target.policy(), now - trace.get(0).nowNanos(), retained);
                assertNoMorePermissive(target, converted, reference, now, random, what);
                if (source.policy().isSingle() && source.policy().algorithm().hasBurst()) {
                  for (int placement = 0; placement < 2; placement++) {
                    List<Event> anywhere = anywhereBefore(random, retained, now, target);
                    assertNoMorePermissive(
                        target,
                        converted,
                        target.forced().replay(anywhere),
                        now,
                        random,
                        what + ", placed anywhere before now");
                  }
                }
              }
            });
      }
    }
  }

  /**
   * A changed limit or burst keeps the shape, so the stored state is only {@code fit} (not carried
   * over): still never more permissive than the new policy fed what the old state retains, for the
   * window algorithms whatever the new limit, and for the rate algorithms as long as the rate is
   * not lowered. (Lowering a rate algorithm's limit keeps the debt in nanoseconds, so the permits
   * behind it weigh less under the slower rule: see {@code docs/algorithms.md}.)
   */
  @Test
  void fit_changedLimitOrBurst_neverMorePermissiveThanTheNewPolicyFedWhatTheOldStateRetains() {
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          "fit after a changed limit, " + algorithm.wireName(),
          CASES * 6,
          seed -> {
            Random random = new Random(seed);
            boolean countDenied = random.nextBoolean();
            Policy before = AlgorithmPropertiesTest.randomPolicy(random, algorithm, countDenied);
            Limit old = before.only();
            long changedLimit = Math.max(1, old.limit() + random.nextInt(5) - 2);
            long limit = algorithm.hasBurst() ? Math.max(changedLimit, old.limit()) : changedLimit;
            Limit.Builder changed =
                Limit.builder().algorithm(algorithm).limit(limit).window(old.window());
            if (algorithm.hasBuckets()) {
              changed.buckets(old.buckets());
            }
            if (algorithm.hasBurst() && random.nextBoolean()) {
              long minBurst = algorithm == Algorithm.TOKEN_BUCKET ? 1 : 0;
              changed.burst(minBurst + random.nextInt((int) (2 * limit + 1)));
            }
            Subject source = Subject.of(before);
            Subject target =
                Subject.of(new Policy(List.of(changed.build()), false, random.nextBoolean()));
            long[] state = source.algorithm().newState();
            List<Event> counted = new ArrayList<>();
            for (Request request :
                AlgorithmPropertiesTest.randomTrace(random, before, source.capacity(), 120)) {
              Decision decision =
                  source.algorithm().apply(state, request.nowNanos(), request.permits());
              if (decision.allowed() || countDenied) {
                counted.add(new Event(request.nowNanos(), request.permits(), decision.allowed()));
              }
              if (random.nextInt(6) == 0) {
                long now = request.nowNanos();
                long[] fitted = target.algorithm().fit(state.clone());
                long retained = retained(before, state, counted, now);
                long[] reference = target.forced().replay(newest(counted, retained));
                assertNoMorePermissive(
                    target,
                    fitted,
                    reference,
                    now,
                    random,
                    before + " fitted to " + target.policy() + " at " + request);
              }
            }
          });
    }
  }

  /** Converting a state into its own policy gives a state never more permissive than it was. */
  @Test
  void carryOver_intoTheSamePolicy_neverMorePermissiveThanTheOriginal() {
    for (String kind : Permissiveness.kinds()) {
      Seeds.run(
          "carry over into itself, " + kind,
          CASES * 6,
          seed -> {
            Random random = new Random(seed);
            Subject subject = Subject.of(Permissiveness.policy(random, kind, random.nextBoolean()));
            long[] state = subject.algorithm().newState();
            for (Request request :
                Permissiveness.randomTrace(random, subject.policy(), subject.capacity(), 150)) {
              subject.algorithm().apply(state, request.nowNanos(), request.permits());
              if (random.nextInt(5) == 0) {
                long now = request.nowNanos();
                assertNoMorePermissive(
                    subject,
                    carryOver(subject, state, subject, now),
                    state,
                    now,
                    random,
                    subject.policy() + " into itself at " + request);
              }
            }
          });
    }
  }

  /**
   * A single limit carried over into a set that contains it is never more permissive than it was
   * (the set's copy of that limit is the limit carried into itself, and the others only add
   * denials), and a set carried over into one of its limits is never more permissive than that
   * limit's part of the set was.
   */
  @Test
  void carryOver_betweenALimitAndASetContainingIt_neverMorePermissiveThanThatLimit() {
    Seeds.run(
        "carry over between a limit and a set containing it",
        CASES * 40,
        seed -> {
          Random random = new Random(seed);
          boolean countDenied = random.nextBoolean();
          Policy others = Permissiveness.randomSet(random, 1 + random.nextInt(2), countDenied);
          Limit limit = Permissiveness.randomSet(random, 1, countDenied).limits().get(0);
          List<Limit> limits = new ArrayList<>(others.limits());
          limits.remove(limit);
          int at = random.nextInt(limits.size() + 1);
          limits.add(at, limit);
          if (limits.size() < 2) {
            return;
          }
          Subject single = Subject.of(new Policy(List.of(limit), false, countDenied));
          Subject set = Subject.of(new Policy(limits, false, countDenied));

          long[] state = single.algorithm().newState();
          for (Request request :
              Permissiveness.randomTrace(random, single.policy(), single.capacity(), 100)) {
            single.algorithm().apply(state, request.nowNanos(), request.permits());
            if (random.nextInt(5) == 0) {
              long now = request.nowNanos();
              assertNoMorePermissive(
                  set,
                  carryOver(single, state, set, now),
                  single,
                  state,
                  now,
                  random,
                  single.policy() + " into " + set.policy() + " at " + request);
            }
          }

          long[] setState = set.algorithm().newState();
          for (Request request :
              Permissiveness.randomTrace(random, set.policy(), set.capacity(), 100)) {
            set.algorithm().apply(setState, request.nowNanos(), request.permits());
            if (random.nextInt(5) == 0) {
              long now = request.nowNanos();
              assertNoMorePermissive(
                  single,
                  carryOver(set, setState, single, now),
                  single,
                  Permissiveness.split(setState).get(at),
                  now,
                  random,
                  set.policy() + " into " + single.policy() + " at " + request);
            }
          }
        });
  }

  /**
   * A converted state is honest about when it may be forgotten: from {@code untilFreshNanos} on it
   * decides every request exactly as a fresh state (so a store that drops it then hands out nothing
   * that was not already back), and so does every state the new policy makes of it.
   */
  @Test
  void carryOver_everyPair_untilFreshOfTheConvertedStateIsHonest() {
    for (String from : Permissiveness.kinds()) {
      for (String to : Permissiveness.kinds()) {
        Seeds.run(
            "carry over " + from + " -> " + to + ", untilFresh",
            CASES,
            seed -> {
              Random random = new Random(seed);
              Subject source =
                  Subject.of(Permissiveness.policy(random, from, random.nextBoolean()));
              Subject target = Subject.of(Permissiveness.policy(random, to, random.nextBoolean()));
              long[] state = source.algorithm().newState();
              long now = 0;
              for (Request request :
                  Permissiveness.randomTrace(random, source.policy(), source.capacity(), 80)) {
                source.algorithm().apply(state, request.nowNanos(), request.permits());
                now = request.nowNanos();
              }
              now += (long) (random.nextDouble() * source.horizonNanos());
              long[] converted = carryOver(source, state, target, now);
              assertFreshAfterUntilFresh(target, converted, now, random);
              List<Request> more =
                  Permissiveness.randomTrace(random, target.policy(), target.capacity(), 20);
              for (Request request : more) {
                long at = now + request.nowNanos() - more.get(0).nowNanos();
                target.algorithm().apply(converted, at, request.permits());
                assertFreshAfterUntilFresh(target, converted, at, random);
              }
            });
      }
    }
  }

  private static void assertFreshAfterUntilFresh(
      Subject subject, long[] state, long now, Random random) {
    LimiterAlgorithm algorithm = subject.algorithm();
    long untilFresh = algorithm.untilFreshNanos(state, now);
    assertThat(untilFresh).as("untilFresh").isNotNegative();
    long later = (long) (random.nextDouble() * subject.horizonNanos());
    for (long after : new long[] {untilFresh, untilFresh + later}) {
      for (long permits : new long[] {0, 1, algorithm.capacity()}) {
        assertThat(algorithm.apply(state.clone(), now + after, permits))
            .as(
                "%s: %d permits %d ns after a state said fresh in %d ns",
                subject.policy(), permits, after, untilFresh)
            .isEqualTo(algorithm.apply(algorithm.newState(), now + after, permits));
      }
    }
  }

  /** What a rule change does to a stored state: {@code KeyDecision.carryOver}. */
  static long[] carryOver(Subject from, long[] values, Subject to, long nowNanos) {
    LimiterAlgorithm old = from.algorithm();
    return to.algorithm()
        .fromAdmissions(old.admissions(old.fit(values.clone()), nowNanos), nowNanos);
  }

  /**
   * How many of the newest counted permits {@code state} still retains at {@code now}: for a set,
   * the most any of its limits retains (see the property's list).
   */
  private static long retained(Policy policy, long[] state, List<Event> counted, long now) {
    if (counted.isEmpty()) {
      return 0;
    }
    List<long[]> parts = policy.isSingle() ? List.of(state) : Permissiveness.split(state);
    long most = 0;
    for (int i = 0; i < parts.size(); i++) {
      most = Math.max(most, retained(policy.limits().get(i), parts.get(i), counted, now));
    }
    return most;
  }

  private static long retained(Limit limit, long[] state, List<Event> counted, long now) {
    long windowNanos = limit.windowNanos();
    long last = counted.get(counted.size() - 1).at();
    return switch (limit.algorithm()) {
      case FIXED_WINDOW -> {
        long start = NanoMath.windowStart(last, windowNanos);
        yield permitsFrom(counted, start);
      }
      case SLIDING_WINDOW -> {
        long start = NanoMath.windowStart(last, windowNanos) - windowNanos;
        yield permitsFrom(counted, start);
      }
      case SLIDING_LOG, CONCURRENCY ->
          Math.min(limit.limit(), permitsFrom(counted, last - windowNanos + 1));
      case SLIDING_BUCKETS -> {
        long bucketNanos = NanoMath.ceilDiv(windowNanos, limit.buckets());
        long oldest = Math.floorDiv(last, bucketNanos) - limit.buckets();
        yield permitsFrom(counted, oldest * bucketNanos);
      }
      case GCRA, TOKEN_BUCKET, LEAKY_BUCKET -> {
        // ceil(debt / T) with debt = (tat - now) + fraction / L and T = W / L, in units of 1/L ns.
        if (state[0] < now) {
          yield 0;
        }
        BigInteger debt =
            BigInteger.valueOf(state[0] - now)
                .multiply(BigInteger.valueOf(limit.limit()))
                .add(BigInteger.valueOf(state[1]));
        BigInteger[] split = debt.divideAndRemainder(BigInteger.valueOf(windowNanos));
        yield split[0].longValueExact() + (split[1].signum() > 0 ? 1 : 0);
      }
    };
  }

  /** The permits counted at or after {@code from}. */
  private static long permitsFrom(List<Event> counted, long from) {
    long permits = 0;
    for (Event event : counted) {
      if (event.at() >= from) {
        permits += event.permits();
      }
    }
    return permits;
  }

  /** The newest {@code permits} counted, at their instants. */
  private static List<Event> newest(List<Event> counted, long permits) {
    List<Event> newest = new ArrayList<>();
    long left = permits;
    for (int i = counted.size() - 1; i >= 0 && left > 0; i--) {
      Event event = counted.get(i);
      long taken = Math.min(left, event.permits());
      newest.add(0, new Event(event.at(), taken, event.admitted()));
      left -= taken;
    }
    return newest;
  }

  /** {@code permits} permits at random instants up to two of the target's windows before now. */
  private static List<Event> anywhereBefore(Random random, long permits, long now, Subject target) {
    List<Long> instants = new ArrayList<>();
    for (long i = 0; i < permits; i++) {
      instants.add(now - (long) (random.nextDouble() * 2 * target.horizonNanos()));
    }
    instants.sort(null);
    List<Event> events = new ArrayList<>();
    for (long instant : instants) {
      events.add(new Event(instant, 1, true));
    }
    return events;
  }
}
