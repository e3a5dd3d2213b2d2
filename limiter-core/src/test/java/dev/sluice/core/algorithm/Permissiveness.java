package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.test.RateAlgorithms;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Compares two states of one policy by what they admit: the yardstick of the release, several-limit
 * and carry-over properties.
 *
 * <h2>"No more permissive"</h2>
 *
 * State {@code a} is no more permissive than {@code b} at {@code now} when every single request
 * that {@code a} would admit at any instant {@code t >= now} (with no other traffic) {@code b}
 * would admit too. Without traffic a state only ever gets more permissive (counts leave windows,
 * debt drains), so for each request size {@code p} the instants that admit it are {@code [now +
 * e(p), ∞)}, where {@code e(p)} is 0 if {@code p} is admitted now and its {@code retryAfter}
 * otherwise. The comparison is therefore exact and cheap: {@code e_a(p) >= e_b(p)} for every {@code
 * p}. It trusts {@code retryAfter}, so every {@code e(p)} is checked tight on the way (admitted at
 * {@code now + e}, denied 1 ns before), and a few random instants are probed directly as well.
 *
 * <p>Decisions are always asked of the policy's plain twin ({@code countDenied: false}, same state
 * layout): a probe must not penalise, and a penalised denial's retryAfter is computed on the
 * penalised state, which is not the question here.
 */
final class Permissiveness {
  private Permissiveness() {}

  /** A policy with the algorithms the properties need: its own, its plain and its forced twin. */
  record Subject(Policy policy, LimiterAlgorithm algorithm, LimiterAlgorithm plain, Forced forced) {
    static Subject of(Policy policy) {
      return new Subject(
          policy,
          LimiterAlgorithm.of(policy),
          LimiterAlgorithm.of(new Policy(policy.limits(), false, false)),
          new Forced(LimiterAlgorithm.of(new Policy(policy.limits(), false, true))));
    }

    long capacity() {
      return algorithm.capacity();
    }

    /** The longest window of the policy's limits: how far ahead probes look. */
    long horizonNanos() {
      long longest = 0;
      for (Limit limit : policy.limits()) {
        longest = Math.max(longest, limit.windowNanos());
      }
      return longest;
    }

    boolean onlyWindows() {
      for (Limit limit : policy.limits()) {
        if (limit.algorithm().hasBurst()) {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * Counting without deciding: the policy with {@code countDenied: true}, which counts every
   * request it is given whether it admits it or not. For the window algorithms that is exactly
   * "count it"; for the rate algorithms a request that does not fit adds its debt capped at one
   * window beyond the tolerance, which is what the key's own state did for the same request.
   */
  record Forced(LimiterAlgorithm algorithm) {
    /** A fresh state that counted {@code events}, in order. */
    long[] replay(List<Event> events) {
      long[] state = algorithm.newState();
      for (Event event : events) {
        count(state, event.at(), event.permits());
      }
      return state;
    }

    /** Counts {@code permits} at {@code at}, in requests no larger than the capacity. */
    void count(long[] state, long at, long permits) {
      long left = permits;
      while (left > 0) {
        long now = Math.min(left, algorithm.capacity());
        algorithm.apply(state, at, now);
        left -= now;
      }
    }
  }

  /**
   * A key's history as the properties keep it: every request it counted, in order, with the forced
   * state after each prefix, so that the history without some permits of a recent request is
   * replayed from just before it.
   */
  static final class History {
    private final Forced forced;
    private final List<Event> events = new ArrayList<>();
    private final List<long[]> before = new ArrayList<>();
    private long[] after;

    History(Forced forced) {
      this.forced = forced;
      this.after = forced.algorithm().newState();
    }

    List<Event> events() {
      return events;
    }

    void add(Event event) {
      before.add(after.clone());
      forced.count(after, event.at(), event.permits());
      events.add(event);
    }

    /** The forced state of the history with {@code permits} fewer at request {@code index}. */
    long[] without(int index, long permits) {
      long[] state = before.get(index).clone();
      Event less = events.get(index).less(permits);
      forced.count(state, less.at(), less.permits());
      for (int i = index + 1; i < events.size(); i++) {
        forced.count(state, events.get(i).at(), events.get(i).permits());
      }
      return state;
    }

    /** Makes the history the one without those permits. */
    void remove(int index, long permits) {
      events.set(index, events.get(index).less(permits));
      after = before.get(index).clone();
      for (int i = index; i < events.size(); i++) {
        if (i > index) {
          before.set(i, after.clone());
        }
        forced.count(after, events.get(i).at(), events.get(i).permits());
      }
    }
  }

  /** A request a key counted: {@code permits} at {@code at}; {@code admitted} unless penalised. */
  record Event(long at, long permits, boolean admitted) {
    Event less(long released) {
      return new Event(at, permits - released, admitted);
    }
  }

  /** Request sizes to probe: every size up to 12, else the edges and a few at random. */
  static long[] sizes(long capacity, Random random) {
    TreeSet<Long> sizes = new TreeSet<>();
    if (capacity <= 12) {
      for (long p = 1; p <= capacity; p++) {
        sizes.add(p);
      }
    } else {
      sizes.add(1L);
      sizes.add(2L);
      sizes.add(capacity / 2);
      sizes.add(capacity - 1);
      sizes.add(capacity);
      for (int i = 0; i < 4; i++) {
        sizes.add(1 + (long) (random.nextDouble() * capacity));
      }
    }
    return sizes.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * The delay from {@code now} after which {@code state} admits {@code permits} if nothing else
   * arrives (0: admitted now), checked tight: admitted then, denied 1 ns before.
   */
  static long earliest(LimiterAlgorithm plain, long[] state, long now, long permits, String what) {
    Decision decision = plain.apply(state.clone(), now, permits);
    if (decision.allowed()) {
      return 0;
    }
    long delay = decision.retryAfterNanos();
    assertThat(delay).as("%s: retryAfter of a denial of %d", what, permits).isPositive();
    assertThat(plain.apply(state.clone(), now + delay, permits).allowed())
        .as("%s: %d permits admitted after retryAfter %d", what, permits, delay)
        .isTrue();
    assertThat(plain.apply(state.clone(), now + delay - 1, permits).allowed())
        .as("%s: %d permits denied 1 ns before retryAfter %d", what, permits, delay)
        .isFalse();
    return delay;
  }

  /** Asserts that {@code candidate} admits nothing, ever, that {@code reference} would not. */
  static void assertNoMorePermissive(
      Subject subject, long[] candidate, long[] reference, long now, Random random, String what) {
    assertNoMorePermissive(subject, candidate, subject, reference, now, random, what);
  }

  /**
   * Asserts that {@code candidate}, a state of {@code candidates}, admits no request, ever, that
   * {@code reference}, a state of {@code references}, would not (requests up to the smaller
   * capacity).
   */
  static void assertNoMorePermissive(
      Subject candidates,
      long[] candidate,
      Subject references,
      long[] reference,
      long now,
      Random random,
      String what) {
    long capacity = Math.min(candidates.capacity(), references.capacity());
    for (long p : sizes(capacity, random)) {
      long mine = earliest(candidates.plain(), candidate, now, p, what + " (candidate)");
      long theirs = earliest(references.plain(), reference, now, p, what + " (reference)");
      assertThat(mine)
          .as(
              "%s: %d permits admitted by the candidate after %d ns, by the reference only after"
                  + " %d ns",
              what, p, mine, theirs)
          .isGreaterThanOrEqualTo(theirs);
    }
    long horizon = Math.max(candidates.horizonNanos(), references.horizonNanos());
    for (int i = 0; i < 4; i++) {
      long at = now + (long) (random.nextDouble() * 3 * horizon);
      long p = 1 + (long) (random.nextDouble() * capacity);
      if (candidates.plain().apply(candidate.clone(), at, p).allowed()) {
        assertThat(references.plain().apply(reference.clone(), at, p).allowed())
            .as("%s: %d permits at now + %d ns", what, p, at - now)
            .isTrue();
      }
    }
  }

  /** Asserts that the two states answer every probe alike: the same decisions, field by field. */
  static void assertDecidesAlike(
      Subject subject, long[] a, long[] b, long now, Random random, String what) {
    String difference = difference(subject, a, b, now, random);
    assertThat(difference).as(what).isNull();
  }

  /** Whether the two states answer every probe alike (see {@link #assertDecidesAlike}). */
  static boolean decidesAlike(Subject subject, long[] a, long[] b, long now, Random random) {
    return difference(subject, a, b, now, random) == null;
  }

  /**
   * The first probe the two states answer differently, or null: when each request size is first
   * admitted, and every field of the decisions at now and at a few random instants. A set of limits
   * is compared limit by limit, since one limit can hide another's difference from every probe (and
   * show it after a later request).
   */
  private static String difference(Subject subject, long[] a, long[] b, long now, Random random) {
    if (!subject.policy().isSingle()) {
      List<long[]> left = split(a);
      List<long[]> right = split(b);
      for (int i = 0; i < left.size(); i++) {
        Limit limit = subject.policy().limits().get(i);
        Subject part =
            Subject.of(new Policy(List.of(limit), false, subject.policy().countDenied()));
        String difference = difference(part, left.get(i), right.get(i), now, random);
        if (difference != null) {
          return limit.describe() + ": " + difference;
        }
      }
      return null;
    }
    LimiterAlgorithm plain = subject.plain();
    long[] sizes = sizes(subject.capacity(), random);
    for (long p : sizes) {
      long left = earliest(plain, a, now, p, "decidesAlike (a)");
      long right = earliest(plain, b, now, p, "decidesAlike (b)");
      if (left != right) {
        return p + " permits first admitted after " + left + " vs " + right + " ns" + states(a, b);
      }
    }
    for (int i = 0; i < 4; i++) {
      long at = i == 0 ? now : now + (long) (random.nextDouble() * 3 * subject.horizonNanos());
      for (long permits :
          new long[] {
            0, 1, subject.capacity(), 1 + (long) (random.nextDouble() * subject.capacity())
          }) {
        Decision left = plain.apply(a.clone(), at, permits);
        Decision right = plain.apply(b.clone(), at, permits);
        if (!left.equals(right)) {
          return permits
              + " permits at now + "
              + (at - now)
              + " ns: "
              + left
              + " vs "
              + right
              + states(a, b);
        }
      }
    }
    return null;
  }

  /** The parts of a {@link LimitSet} state: {@code [n, length_1, state_1..., ...]}. */
  static List<long[]> split(long[] state) {
    List<long[]> parts = new ArrayList<>();
    int at = 1;
    for (int i = 0; i < state[0]; i++) {
      int length = (int) state[at];
      parts.add(java.util.Arrays.copyOfRange(state, at + 1, at + 1 + length));
      at += 1 + length;
    }
    return parts;
  }

  private static String states(long[] a, long[] b) {
    return " (states " + java.util.Arrays.toString(a) + " vs " + java.util.Arrays.toString(b) + ")";
  }

  /** Every algorithm's name, and "set" for policies of two or three limits. */
  static List<String> kinds() {
    List<String> kinds = new ArrayList<>();
    for (Algorithm algorithm : RateAlgorithms.values()) {
      kinds.add(algorithm.wireName());
    }
    kinds.add("set");
    return kinds;
  }

  /** A random policy of one of {@link #kinds()}. */
  static Policy policy(Random random, String kind, boolean countDenied) {
    if (kind.equals("set")) {
      return randomSet(random, 2 + random.nextInt(2), countDenied);
    }
    return AlgorithmPropertiesTest.randomPolicy(random, Algorithm.fromWireName(kind), countDenied);
  }

  /** A random policy of {@code size} distinct limits, of any algorithms. */
  static Policy randomSet(Random random, int size, boolean countDenied) {
    Algorithm[] algorithms = RateAlgorithms.values();
    List<Limit> limits = new ArrayList<>();
    while (limits.size() < size) {
      Limit limit =
          AlgorithmPropertiesTest.randomPolicy(
                  random, algorithms[random.nextInt(algorithms.length)], false)
              .only();
      if (!limits.contains(limit)) {
        limits.add(limit);
      }
    }
    return new Policy(limits, false, countDenied);
  }

  /** A random trace paced by one of the policy's limits (see {@code randomTrace}). */
  static List<AlgorithmPropertiesTest.Request> randomTrace(
      Random random, Policy policy, long capacity, int length) {
    Limit pace = policy.limits().get(random.nextInt(policy.limits().size()));
    return AlgorithmPropertiesTest.randomTrace(random, new Policy(pace), capacity, length);
  }
}
